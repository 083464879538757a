"""How loudly each review flag speaks, decided by how often it is right.

A flag is a *warning* (it puts the item in the review queue) only when its precision against
human labels was measured at 0.6 or more, or when what it says is counted from the item itself
and so always true (`one-distractor`); one whose precision was measured lower, or could not be
measured with the bundled models, is a *hint* (severity "info": shown grey beside the item,
never queued). A review queue that flags almost everything is one a teacher learns to
ignore (docs/evaluation.md, "Flags", has the measurements and the commands).

`FLAG_POLICY` maps a flag code to its severity and the measurement behind it; a code not
listed keeps the severity its metric gave it. Metrics apply it through `Metric.flags`
(`metrics/base.py`), so every caller (CLI, GUI, generation) sees the same severities.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from quizsmith.domain import Flag


@dataclass(frozen=True)
class FlagRule:
    severity: str
    #: Measured precision (share of flagged items people rated poorly), None: not measured.
    precision: float | None
    #: Where the number comes from, in a few words.
    basis: str


_NO_MCQ_LABELS = (
    "not measurable here: no human-labelled multiple-choice set is shipped, so a hint until "
    "a teacher's own decisions or such a set measure it"
)
_MIRROR = "MIRROR on the bundled 135M reviewers is noise (docs/evaluation.md, MIRROR table)"

#: Measured with `bench/judgement.py` (docs/evaluation.md, "Flags"); cross-validated where a
#: model is fitted. Precision = the share of flagged items that people rated poorly on what
#: the flag claims.
FLAG_POLICY: Final[dict[str, FlagRule]] = {
    "no-question-form": FlagRule(
        "warning",
        1.0,
        "217 of 217 flagged variant questions were non-questions; 5 of 5 on QGEval were rated "
        "unclear or disfluent",
    ),
    "one-distractor": FlagRule(
        "warning",
        1.0,
        "counted, not estimated: an MCQ with two options is one a blind guess gets right half "
        "the time, true of every item it flags (domain.distractor_warning)",
    ),
    "low-overall": FlagRule(
        "warning",
        0.775,
        "estimate < 0.4 out of fold (the shipped blend, bench/judgement.py, 2026-11-29): 77.5% "
        "of 346 flagged QGEval questions were rejected by the raters (base rate 32.5%), 97.6% "
        "of 551 flagged variant questions were flawed",
    ),
    "answer-differs": FlagRule(
        "info",
        0.33,
        "NACo a < 0.5 (likelihood answer): 33% of 603 flagged QGEval questions had poor answer "
        "consistency (base rate 26%; free-text answer: 32%)",
    ),
    "reader-differs": FlagRule(
        "info",
        0.35,
        "standard profile only: the 1.5B reader's answer shares no word with the key, but it "
        "finds the key likely enough (else reader-rejects-key): out of fold 35% [20%, 52%] of "
        "101 such QGEval questions were rated below 2.5 for answer consistency (base rate "
        "26%; the reader_flag study, studies/README.md)",
    ),
    "statement-is-question": FlagRule(
        "warning",
        1.0,
        "counted, not estimated: a true/false statement that ends with a question mark is "
        "one no student can answer True or False to",
    ),
    "reader-answers-more": FlagRule(
        "info",
        0.33,
        "standard profile only: the 1.5B reader's answer holds every word of the key and more "
        "(quality/reader.py answers_more): 33% [24%, 45%] of 192 such QGEval questions (of "
        "3,000) were rated below 2.5 for answer consistency (base rate 26%); nothing fitted. "
        "The Overall chip is amber, not green, beside it",
    ),
    "reader-rejects-key": FlagRule(
        "warning",
        0.64,
        "standard profile only: the 1.5B reader's answer shares no word with the key and the "
        "key's mean log-probability as its reply is below a cut (-0.62, quality/reader.py); "
        "the cut chosen in each of 5 passage-grouped folds, out of fold 64% [56%, 74%] of 466 "
        "raised QGEval questions had answer consistency < 2.5 (base rate 26%, recall 39%; "
        "the reader_flag study, studies/README.md)",
    ),
    "reader-disagrees": FlagRule(
        "info",
        0.935,
        "true/false key-right estimate < 0.1 out of fold (bench/item_types.py, CELA): on 80 "
        "statements each keyed right and wrong, precision 0.98 (0.94 at 20% wrong keys), "
        "recall 0.73; a hint all the same: those statements repeat the passage word for word "
        "or change one word, and a true statement in a teacher's own words, which would look "
        "false to it, was not measured",
    ),
    "not-a-question": FlagRule(
        "info",
        0.5,
        "the 135M model's A.2 verdict (part 1): 6 of 12 flagged variant questions were "
        "non-questions (recall 9%); 0 of 6 flagged QGEval questions were rated unclear or "
        "disfluent",
    ),
    "too-easy": FlagRule("info", None, "step counts of a 270M model carry no signal (r 0.04)"),
    "too-hard": FlagRule("info", None, "step counts of a 270M model carry no signal (r 0.04)"),
    "kda-weak": FlagRule("info", None, _NO_MCQ_LABELS),
    "distractor-never-chosen": FlagRule("info", None, _NO_MCQ_LABELS),
    "two-options-correct": FlagRule("info", None, _NO_MCQ_LABELS),
    "key-in-stem": FlagRule("info", None, _NO_MCQ_LABELS),
    # What an MCQ's or a cloze's wrong answers say, read by spaCy (quality/option_checks.py),
    # measured on CELA's 1,896 labelled blanks of 100 cloze tests (bench/option_checks.py;
    # docs/evaluation.md, "Wrong answers judged by reading"): a blank is flagged when any of
    # its three wrong answers is; intervals resample whole tests.
    "option-other-kind": FlagRule(
        "warning",
        0.69,
        "a wrong answer whose part of speech (nouns and names one kind, verbs and auxiliaries "
        "one) or number-ness differs from the key's, read in the key's sentence: out of fold "
        "(parts chosen on 4 of 5 test folds) 69% [62%, 76%] of 609 flagged CELA blanks had "
        "distractors nobody would choose (val N; base rate 43%), recall 83%; by source cbt "
        "81%, jiang 61%, random 96%, roundmt 27% (base rate 13%): right mostly where "
        "distractors are careless. Read on its own (the passage does not hold the key) it did "
        "not hold out of fold (56% [46%, 66%]), so there it is option-other-form",
    ),
    "option-other-form": FlagRule(
        "info",
        0.6,
        "in the key's sentence, a wrong answer of another form (plural for singular, another "
        "tense): 60% [48%, 71%] of 157 flagged CELA blanks (base rate 43%, recall 19%); read "
        "on its own, part of speech or number: 62% [54%, 69%] of 765 (56% out of fold)",
    ),
    "option-may-be-correct": FlagRule(
        "warning",
        1.0,
        "counted, not estimated: a wrong answer with the key's own words (case, determiners "
        "and punctuation aside) is a second right answer; on CELA 2 of 2 such blanks (2 tests) "
        "were labelled as not having exactly one correct option (rel F, base rate 12%). A "
        "wrong answer the passage holds does not raise it: 14% [10%, 19%] of 347 such blanks",
    ),
    "option-duplicate": FlagRule(
        "info",
        None,
        "counted: two wrong answers with the same words leave one choice fewer; no CELA label "
        "says so (3 such blanks, none labelled as having two correct options)",
    ),
    "answerable-without-passage": FlagRule("info", None, _NO_MCQ_LABELS),
    "not-answerable-from-passage": FlagRule("info", None, _NO_MCQ_LABELS),
    **{
        f"mirror-low-{criterion}": FlagRule("info", None, _MIRROR)
        for criterion in (
            "grammaticality",
            "appropriateness",
            "relevance",
            "novelty",
            "complexity",
        )
    },
}


def apply_policy(flag: Flag) -> Flag:
    """The flag with the severity its measured precision earns (errors stay errors only when
    measured; see the module docstring)."""
    rule = FLAG_POLICY.get(flag.code)
    if rule is None or rule.severity == flag.severity:
        return flag
    return replace(flag, severity=rule.severity)


def is_hint(flag: Flag) -> bool:
    """A hint is shown, but does not put the item in the review queue."""
    return flag.severity == "info"
