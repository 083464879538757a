"""What the passage says before a sentence that points back ("It was closed in 1642 ...",
"His calendar ...", "This process ..."): the model writing a question about that sentence
alone has to guess what the pronoun means, and on the bench it guessed wrong ("When was the
Palace of Westminster closed?" for the second Globe). The parser says which words point
back (its morphology: a personal or demonstrative pronoun or determiner of the third
person), so no word list is kept here.
"""

from __future__ import annotations

from typing import Any

from quizsmith.generation.analysis import PassageAnalysis, fact_sentences
from quizsmith.generation.parser import parse
from quizsmith.generation.web_marks import plain

#: How many sentences back the context may reach: a run of sentences about one thing
#: ("It has three tiers ... It was added ...") goes back to the one that names it.
MOST_SENTENCES_BACK = 3


def refers_back(doc: Any) -> bool:
    """Whether a parsed sentence opens with a third-person or demonstrative pronoun or
    has one in its subject ("It ...", "His calendar ...", "Estimates of its capacity ..."):
    what it speaks of, it names only by pointing back."""
    words = [t for t in doc if not (t.is_punct or t.is_space)]
    subjects = [t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and t.head.dep_ == "ROOT"]
    markers = [*words[:1], *(t for s in subjects for t in s.subtree)]
    return any(_points(t) for t in markers)


def _points(token: Any) -> bool:
    kind = token.morph.get("PronType")
    person = token.morph.get("Person")
    return (
        bool(set(kind) & {"Prs", "Dem"}) and not set(person) & {"1", "2"} and token.dep_ != "expl"
    )


def antecedent_text(analysis: PassageAnalysis, sentence_index: int) -> str:
    """The sentences before `sentence_index` in its paragraph that the model needs to read
    it, where it points back (`refers_back`): back to the nearest one that does not point
    back itself, at most MOST_SENTENCES_BACK; "" where it names what it speaks of, or
    opens its paragraph. Web marks are left out."""
    sentences = analysis.sentences
    if not 0 < sentence_index < len(sentences):
        return ""
    at = sentences[sentence_index]
    if not refers_back(parse(plain(at.text))):
        return ""
    before: list[str] = []
    for s in reversed(sentences[max(0, sentence_index - MOST_SENTENCES_BACK) : sentence_index]):
        if s.paragraph != at.paragraph:
            break
        before.insert(0, plain(s.text))
        if not refers_back(parse(before[0])):
            break
    return " ".join(before)


def context_before(analysis: PassageAnalysis, sentence_index: int) -> str:
    """The lines a chat model's question with its own answer reads before its fact: those it
    points back to (`antecedent_text`), else the passage's first statement, which most often
    names what the passage is about; "" for that statement itself. Without them the 1.5B
    model's questions often left their subject unnamed ("Who founded the dynasty?"): on 282
    facts of 94 passages written for the project, with the first statement 124 facts gave a
    question against 139, and where the questions differ they read 42 usable, 16 to fix, 9
    bad of 67 against 35, 33, 14 of 82 (blind; studies/together_constituents.py)."""
    before = antecedent_text(analysis, sentence_index)
    if before:
        return before
    facts = fact_sentences(analysis)
    if not facts or facts[0].index >= sentence_index:
        return ""
    return first_statement(analysis)


def lines_before(analysis: PassageAnalysis, sentence_index: int) -> tuple[str, bool]:
    """The lines a chat question reads before its fact (`context_before`), and whether they
    are the passage's first statement, which many facts read (a local model keeps their
    state: `writer.question_heads`). Shown before an answer-aware question too: on 324 facts
    of 160 passages written for the project, where the questions differ from those shown
    only the lines a fact points back to, they read blind 83 usable, 43 bad of 168 against
    37, 58 of 158 (studies/answer_aware_opening.py)."""
    before = context_before(analysis, sentence_index)
    return before, bool(before) and before == first_statement(analysis)


def first_statement(analysis: PassageAnalysis) -> str:
    """The passage's first statement (`fact_sentences`), web marks left out; "" for none."""
    facts = fact_sentences(analysis)
    return plain(facts[0].text) if facts else ""
