"""Help → the teacher's guide: a first-run walk-through, what each score and flag means, and
the keyboard shortcuts. One page with anchors, so each menu entry opens at its section."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from quizsmith.gui.scores import LEVEL_COLORS
from quizsmith.metrics.mirror_prompts import CRITERIA as MIRROR_CRITERIA

#: Section anchors of the guide (menu entries open at one of them).
SECTIONS = ("start", "scores", "flags", "queue", "shortcuts")

#: (keys, what they do), shown in the guide; the same shortcuts the menus and buttons set.
SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("Ctrl+N", "New passage"),
    ("Ctrl+O", "Open a passage file (.txt, .md, .docx, .pdf)"),
    ("Ctrl+G", "Generate items from the passage"),
    ("Ctrl+S", "Save the item in the editor (and the scores computed for its text)"),
    ("Ctrl+E", "Export…"),
    ("Ctrl+,", "Settings…"),
    ("Ctrl+Z / Ctrl+Shift+Z", "Undo / redo in any text field"),
    ("A / R", "Accept / reject the selected item in the review queue"),
    ("Del", "Delete the selected items of a list (asks first)"),
    ("F1", "This guide"),
    ("Ctrl+Q", "Quit (unsaved item edits are kept as a draft)"),
)


#: Each review reason in a teacher's words, by flag code (every metric's `flag_codes`;
#: tests/gui check that none is missing).
FLAG_WORDS = {
    "no-question-form": "it does not read as a question",
    "one-distractor": "a multiple-choice item with only one wrong answer",
    "low-overall": "a low overall estimate",
    "near-duplicate": "very like an item already in the bank",
    "not-a-question": "the model says it is not a real question",
    "answer-differs": "the model's answer differs from the key",
    "reader-differs": "a model reading the passage gives another answer",
    "reader-rejects-key": "a model reading the passage answers otherwise and doubts the key",
    "reader-answers-more": "a model reading the passage answers with the key and more",
    "reader-disagrees": "a model reading the passage doubts the true/false key",
    "statement-is-question": "a true/false statement that ends with a question mark",
    "too-easy": "fewer reasoning steps than expected",
    "too-hard": "more reasoning steps than expected",
    "kda-weak": "knowing the fact hardly helps to answer it",
    "answerable-without-passage": "answerable without the passage",
    "two-options-correct": "two options may be correct",
    "distractor-never-chosen": "a wrong answer nobody chooses",
    "key-in-stem": "the answer's words appear in the question",
    "option-other-kind": "a wrong answer no one would choose (not the same kind as the key)",
    "option-other-form": "a wrong answer in another form than the key",
    "option-may-be-correct": "another option may also be correct",
    "option-duplicate": "two wrong answers that say the same",
    "not-answerable-from-passage": "not answerable from its passage",
    "far-from-reference": "far from the reference wording",
    **{f"mirror-low-{c}": f"a low MIRROR rating for {c}" for c in MIRROR_CRITERIA},
}
#: Severities of flags the measured policy does not list (they keep their metric's own).
_UNLISTED_SEVERITY = {"near-duplicate": "warning", "far-from-reference": "info"}


def flag_severity(code: str) -> str:
    """How the app shows a flag: the measured policy's severity (metrics/flag_policy.py)."""
    from quizsmith.metrics.flag_policy import FLAG_POLICY

    rule = FLAG_POLICY.get(code)
    return rule.severity if rule is not None else _UNLISTED_SEVERITY.get(code, "warning")


def _flag_list(severity: str) -> str:
    wanted = ("warning", "error") if severity == "warning" else (severity,)
    words = [w for code, w in FLAG_WORDS.items() if flag_severity(code) in wanted]
    mirror = [w for w in words if w.startswith("a low MIRROR rating")]
    words = [w for w in words if w not in mirror]
    if mirror:
        words.append("a low MIRROR rating (grammar, relevance …)")
    return ", ".join(f"<i>{w}</i>" for w in words)


def _chip(level: str, text: str) -> str:
    return f"<span style='background:{LEVEL_COLORS[level]}; padding:0 6px'>{text}</span>"


def guide_html() -> str:
    rows = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in SHORTCUTS)
    return f"""
<h2><a name="start"></a>Getting started</h2>
<ol>
<li><b>Add a passage.</b> Paste a textbook passage into the <i>Passage</i> tab (or open or
drop a .txt, .md, .docx or .pdf file). Give it a title and a subject.</li>
<li><b>Generate.</b> Choose how many items and which types, then press <i>Generate</i>
(Ctrl+G). Each finished item appears in the table and is saved at once; <i>Cancel</i>
keeps the finished ones. The status bar says which step is running; the first item can take
a few minutes on a laptop while the models load. <i>Generate</i> again writes new questions,
about other facts first, and never one the bank already has (a rejected one included).</li>
<li><b>Check each item.</b> Click an item: the editor on the right shows its scores as
coloured chips and, under <i>Evidence</i>, what the models saw and why they scored it so.
Edit the wording; the Overall estimate follows about a second after you stop typing.
<i>Explain</i> (beside the Evidence tab) runs one more metric on the item, such as NACo's
reasoning steps or KDA's solvers; <i>Score all</i> runs every one.
<i>Save</i> (Ctrl+S) stores the text; until then your edits are a draft and the item,
its scores and exports stay as last saved.</li>
<li><b>Decide.</b> <i>Accept</i> or <i>Reject</i> (pick a reason). The <i>Review queue</i>
tab lists every item still undecided, the ones with warnings first. <i>Delete…</i> (or Del
in a list) removes items, and the button under the passages a passage with its items; both
ask first.</li>
<li><b>Export.</b> File → Export… writes the accepted items (or a quiz) as a Word student
sheet, an answer key, a teacher report, or a Moodle, Canvas (QTI), GIFT, Aiken or CSV
file.</li>
</ol>
<p>The scores are estimates made by small language models on your computer. They point at
items worth a second look; they do not replace your judgement.</p>

<h2><a name="scores"></a>What the scores mean</h2>
<p>Chip colours follow each score's own scale and its review reasons:
{_chip("good", "green")} good, {_chip("ok", "amber")} worth a look,
{_chip("bad", "red")} probably a problem, {_chip("none", "grey")} not scored, out of date,
or <i>does not apply</i> (NACo judges questions, not true/false statements or sentences
with a blank). Hover over a chip for the number, what it means and its reasons. A chip
marked <i>out of date</i> describes the wording before your last edit (or before an
alternative was swapped in) and is being recomputed.</p>
<dl>
<dt><b>Overall</b> (0-100%)</dt>
<dd>The estimated chance that raters accept the question as fluent, clear and answerable
from its passage, learned from raters' judgements. On teachers' own keep/remove decisions it
has not been shown to predict the decision, so read it as a hint. It orders the review
queue (lowest first). Tools → <i>Learn my standard</i> refits it on your own accept/reject
decisions (of questions).
On the standard profile, while the larger model still reads the passage after an edit, the
chip shows a grey <i>quick estimate</i> from the small models first; it is a rougher guess,
and the full estimate replaces it a second or two later.
For a <b>true/false</b> item it means something else: the estimated chance that its key is
right, as a model reading the passage sees it (no teacher ratings exist for statements; it
was measured on statements made from cloze tests). It checks that a statement says what the
passage says, word for word, so a true statement in your own words may look false to it.
<b>Fill-in-the-blank</b> items get no Overall: measured on labelled cloze tests, the small
reader could not tell a blank with one right answer from one with two; hover over the chip
for the figures.</dd>
<dt><b>NACo</b> (0-1; multiple-choice and short-answer items)</dt>
<dd>Is it a natural question, is it answerable from the passage, and is it about as
complex as expected? A model reasons through the question step by step and answers it;
NACo is 0 when the model says it is not a real question or its answer shares nothing with
the key. Evidence: the model's reasoning steps and answer.</dd>
<dt><b>KDA</b> (0-1; multiple-choice and true/false items)</dt>
<dd>Knowledge-dependent answerability: does knowing the target fact help a student answer?
Several model "students" answer with and without the fact. High (0.8 or more) means
students who know the fact get it right and others do not - in the study, most such items
were accepted by teachers. Below 0.3 the item rarely tests the fact. Evidence: each
solver's choice with and without the fact, and how often each distractor is chosen.</dd>
<dt><b>EXAM</b> (yes/no; multiple-choice and true/false items)</dt>
<dd>Can a question-answering model answer the item correctly from its passage alone?
<i>no</i> means the passage may not support the key.</dd>
<dt><b>MIRROR</b> (1-5)</dt>
<dd>Two models review the item in turn for grammaticality, appropriateness, relevance,
novelty and complexity, listing strengths and flaws, until they agree. The chip shows the
mean rating: red at 2 or below, amber below 3.5. Slow; run with <i>Score all</i>.</dd>
<dt><b>MRE</b> (0-1)</dt>
<dd>Only for items with a reference question (e.g. imported from a bank): how close the
wording is to the reference or to a paraphrase of it.</dd>
</dl>

<h2><a name="flags"></a>Flags: hints and warnings</h2>
<p>Each score can raise review reasons. You can change their thresholds in Settings →
Scoring. A reason is a <i>warning</i> only where it was found right often enough when
checked against teachers' and raters' judgements; the others are <i>hints</i>.</p>
<ul>
<li><b>warning</b> (amber ⚠; an <b>error</b> is red ✖): something is probably wrong:
{_flag_list("warning")}. These put the item first in the review queue.</li>
<li><span style="color:#777777"><b>hint</b> (grey ℹ): worth a look, not found reliable
enough to call a fault: {_flag_list("info")}. Hints do not move an item up the
queue.</span></li>
</ul>

<h2><a name="queue"></a>The review queue</h2>
<p>Every item nobody has decided on yet (draft or needs review). Items with a warning or an
error come first, then the rest; within each group the item with the lowest overall
estimate comes first, and items without an estimate (not yet scored) come last. With the
list focused, <b>A</b> accepts and <b>R</b> rejects (the worst flag is recorded as the
reason), and the next item is selected.</p>

<h2><a name="shortcuts"></a>Keyboard shortcuts</h2>
<table cellpadding="3">{rows}</table>
"""


class HelpDialog(QDialog):
    """The guide in a browser pane; non-modal, so it can stay open beside the window."""

    def __init__(self, section: str = "start", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Quizsmith guide")
        self.resize(720, 640)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(guide_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.show_section(section)

    def show_section(self, section: str) -> None:
        if section in SECTIONS:
            self.browser.scrollToAnchor(section)
