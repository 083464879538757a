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
        0.67,
        "estimate < 0.4 out of fold: 67% of 202 flagged QGEval questions were rejected by the "
        "raters (base rate 33%), 95% of flagged variant questions were flawed",
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
        "26%; bench/reader_flag.py)",
    ),
    "statement-is-question": FlagRule(
        "warning",
        1.0,
        "counted, not estimated: a true/false statement that ends with a question mark is "
        "one no student can answer True or False to",
    ),
    "reader-rejects-key": FlagRule(
        "warning",
        0.64,
        "standard profile only: the 1.5B reader's answer shares no word with the key and the "
        "key's mean log-probability as its reply is below a cut (-0.62, quality/reader.py); "
        "the cut chosen in each of 5 passage-grouped folds, out of fold 64% [56%, 74%] of 466 "
        "raised QGEval questions had answer consistency < 2.5 (base rate 26%, recall 39%; "
        "bench/reader_flag.py)",
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
