"""What building one target's candidates needs and gives (`builder`): the run's context,
the candidates with the notes on what was dropped, and the steps announced on the way."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from quizsmith.domain import Item, Passage
from quizsmith.generation import distractors as dis
from quizsmith.generation.analysis import PassageAnalysis, analyse
from quizsmith.generation.passage_subject import Subject, subject_of
from quizsmith.generation.writer import Written
from quizsmith.jobs import CancelToken
from quizsmith.providers.base import Provider

#: A chat generator (the standard profile's 1.5B model, an API model) writes better questions
#: than the rule, whose stems are often ungrammatical when the answer sits mid-sentence ("the
#: land is steep, so the what quickly?", "In 1855 the physician what added ...?"). The rule
#: used to stand in when every model attempt failed; of the 11 rule-made items read on the
#: bench (docs/generation.md, both profiles, 2026-11-27/28) none was usable as written, so
#: on a chat generator a fact whose attempts all fail gives way to a spare fact instead.
CHAT_PROFILE: Final = "chat"


@dataclass
class BuildContext:
    passage: Passage
    generator: Provider
    profile: str
    embed: Callable[[Sequence[str]], list[list[float]]] | None
    qa: Provider | None
    cancel: CancelToken
    difficulty: str | None
    seed: int
    #: Other answers found in the passage: same-passage distractor candidates.
    passage_answers: list[str] = field(default_factory=list)
    #: The terms the passage defines, with the noun it calls each (`PassageAnalysis.terms`):
    #: wrong answers too, whether or not a target asks for them.
    passage_terms: dict[str, str | None] = field(default_factory=dict)
    filter_config: dis.FilterConfig = field(default_factory=dis.FilterConfig)
    #: Whether the QA model can tell a playwright from a character ("Is Creon a
    #: playwright?"): one large enough for chat prompts can, the tiny ones cannot
    #: (`dis.kind_reading`).
    qa_knows_kinds: bool = False
    #: Keys this run made or the teacher ruled out (casefolded): a question the model writes
    #: with its own answer is not kept for one of them (`builder._questions`).
    made_keys: set[str] = field(default_factory=set)
    #: Whether the next true/false statement is to be false (the quiz's plan,
    #: `true_false.false_plan`); None: a seeded coin decides.
    false_statement: bool | None = None
    #: Whether true/false statements are restated by the generator (`true_false.restates`).
    restates_statements: bool = False
    #: A chat generator's second pass over the facts whose question with its own answer was
    #: dropped (`pipeline`): their questions are answer-aware.
    answer_aware: bool = False
    #: The question with its own answer written for each fact (`builder._together`): its
    #: prompt is the fact alone, so every target of one sentence got the same reply at
    #: temperature 0. On the bench's 148-word water cycle passage, 30 calls were 8 prompts,
    #: 126 of its 554 s.
    together_written: dict[str, tuple[Written, str]] = field(default_factory=dict)
    #: The QA model's kind for a (question, key) where no question names one
    #: (`key_kinds.kind_of_key`): a lone question's second set of wrong answers asks again.
    key_kinds: dict[tuple[str, str], str | None] = field(default_factory=dict)

    @property
    def judge(self) -> Provider | None:
        """The QA model where it is asked the yes/no kind questions: one that gives
        log-probabilities and is large enough to tell kinds apart."""
        return (
            self.qa if self.qa is not None and self.qa.can_logprob and self.qa_knows_kinds else None
        )

    @cached_property
    def subject(self) -> Subject | None:
        """The passage's subject where its first statement says what it is (`passage_subject`)."""
        return subject_of(self.analysis)

    @cached_property
    def analysis(self) -> PassageAnalysis:
        """The passage's analysis (generation/analysis.py), shared by every target."""
        return analyse(self.passage.text)


@dataclass
class Built:
    candidates: list[Item] = field(default_factory=list)
    #: Why stems or distractors were dropped (for the evidence and the shortfall message).
    notes: list[str] = field(default_factory=list)
    #: Whether the question written with its own answer was dropped and nothing else tried.
    together_dropped: bool = False


@dataclass(frozen=True)
class BuildStep:
    """A step of building one target's candidates, announced before it runs, so that a
    front end can say which of the slow model calls is under way (issue 27)."""

    #: What is being done, in a teacher's words ("writing question 2 of 3").
    what: str
    #: How much of the building is done before this step (0-1).
    share: float


BuildSteps = Generator[BuildStep, None, Built]
