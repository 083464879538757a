"""What callers (CLI, GUI, bank batch jobs) pass to and get back from generation."""

from __future__ import annotations

from dataclasses import dataclass, field

from quizsmith.domain import DIFFICULTIES, ITEM_TYPES, Item


@dataclass(frozen=True, kw_only=True)
class GenerationRequest:
    """A teacher's order: how many items of which types, and what to pin."""

    n: int = 5
    types: tuple[str, ...] = ("mcq",)
    difficulty: str | None = None
    #: Overgenerate: candidate items per target; the best by the live metrics is kept. None:
    #: the generator's default (`default_candidates`).
    candidates_per_target: int | None = None
    #: Rank candidates with the live metrics (NACo k=1 + KDA); off: keep the first valid one.
    rank: bool = True
    #: Sentences (or spans) of the passage the teacher wants asked about, first.
    pinned_facts: tuple[str, ...] = ()
    #: Answers the teacher wants used (each must occur in the passage).
    pinned_answers: tuple[str, ...] = ()
    seed: int = 0
    #: Answers not to ask about again (items already made, e.g. when a batch resumes).
    avoid_answers: tuple[str, ...] = ()
    #: Questions already asked about this passage (a resumed batch, an earlier run, a
    #: rejected item): a candidate with the same question is not made again, even with
    #: another answer.
    avoid_stems: tuple[str, ...] = ()
    #: Answers and facts earlier runs asked about: other facts and answers are chosen first,
    #: these only when the passage has nothing else (see `targets.choose_targets`).
    asked_answers: tuple[str, ...] = ()
    asked_facts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.n <= 100:
            raise ValueError("n must be between 1 and 100.")
        if not self.types or any(t not in ITEM_TYPES for t in self.types):
            raise ValueError(f"types must be some of {', '.join(ITEM_TYPES)}.")
        if self.difficulty is not None and self.difficulty not in DIFFICULTIES:
            raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}.")
        if self.candidates_per_target is not None and not 1 <= self.candidates_per_target <= 10:
            raise ValueError("candidates_per_target must be between 1 and 10.")

    def candidates_for(self, profile: str) -> int:
        """The candidates per target asked for, else the generator profile's default."""
        if self.candidates_per_target is not None:
            return self.candidates_per_target
        return default_candidates(profile)


#: Candidates per target when the request names none, by generator profile. A chat generator
#: writes one: its first question is written with its own answer, and those read better than
#: the answer-aware ones it samples after (4 of 9 usable against 2 of 20 on six bench
#: passages, docs/generation.md); three cost 2-3 times the time (issue 44's speed target).
#: A few-shot (light) generator keeps three: the rule-made question first, which where it
#: passes the checks is the only one; else two of the model's (builder.RULE_ATTEMPT).
CHAT_CANDIDATES = 1
FEWSHOT_CANDIDATES = 3


def default_candidates(profile: str) -> int:
    return CHAT_CANDIDATES if profile == "chat" else FEWSHOT_CANDIDATES


@dataclass
class GeneratedStep:
    """Payload of the progress event that finishes one item: the kept item and the other
    candidates for the same target (also in `item.alternatives`)."""

    item: Item
    alternatives: list[Item] = field(default_factory=list)


@dataclass
class GenerationResult:
    """What `generate_items` returns when it ends (also on cancel: what was finished)."""

    items: list[Item] = field(default_factory=list)
    #: Set when fewer items than requested came back: why, in a sentence for the teacher.
    shortfall: str | None = None
    #: Targets or candidates that were dropped, with the reason (shown in the log/evidence).
    dropped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: True when the job was cancelled; `items` holds what was finished before.
    cancelled: bool = False
