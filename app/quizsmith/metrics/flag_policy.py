"""How loudly each review flag speaks, decided by how often it is right.

A flag is a *warning* (it puts the item in the review queue) only when its precision against
human labels was measured at 0.6 or more; one whose precision was measured lower, or could
not be measured with the bundled models, is a *hint* (severity "info": shown grey beside the
item, never queued). A review queue that flags almost everything is one a teacher learns to
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


FLAG_POLICY: Final[dict[str, FlagRule]] = {}


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
