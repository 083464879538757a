"""Generating items into the bank, for `quizsmith generate` and the desktop app."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, Passage
from quizsmith.generation.keeper import ItemKeeper
from quizsmith.jobs import CancelToken, Progress
from quizsmith.operations.changes import OpChanges
from quizsmith.operations.passages import items_of_passage
from quizsmith.settings import Settings

#: How far the seed of a new run moves per item the passage has: the pipeline spaces its
#: targets' seeds 100 apart, so a step past that gives every target seeds no run used.
NEW_RUN_SEED_STEP = 1009


@dataclass
class GeneratedBatch:
    items: list[Item]
    shortfall: str | None = None
    #: Stopped by Cancel; `items` are the ones finished (and stored) before it.
    cancelled: bool = False
    changes: OpChanges = field(default_factory=OpChanges)


def asked_stems(items: Sequence[Item]) -> tuple[str, ...]:
    """Every question the bank holds for these items: their own, rejected ones included,
    and the alternatives kept beside them (the teacher has seen those too)."""
    stems: dict[str, None] = {}
    for item in items:
        stems.setdefault(item.stem, None)
        for alt in item.alternatives:
            stems.setdefault(alt.stem, None)
    return tuple(stems)


def continue_batch(bank: ItemBank, passage_id: int, request: Any) -> tuple[Any | None, int]:
    """(the request for what is still to be made, how many items the bank holds already)
    when a batch on the same passage runs again: the items already stored count towards
    `request.n` and their answers are not asked about again. None: nothing is left."""
    done = items_of_passage(bank, passage_id)
    if not done:
        return request, 0
    left = request.n - len(done)
    if left <= 0:
        return None, len(done)
    return dataclasses.replace(
        request,
        n=left,
        avoid_answers=tuple(it.key for it in done),
        avoid_stems=asked_stems(done),
    ), len(done)


def new_questions_request(bank: ItemBank, passage_id: int | None, request: Any) -> Any:
    """The request for `request.n` more items about a passage that may have some already
    (the desktop app's Generate, pressed again): other facts and answers first, never a
    question the bank holds for the passage (a rejected one included), and another seed,
    so a fact asked again gets other wording. A second run reproduced the first three
    questions word for word, a rejected one among them (issue 27)."""
    done = items_of_passage(bank, passage_id)
    if not done:
        return request
    return dataclasses.replace(
        request,
        avoid_stems=(*request.avoid_stems, *asked_stems(done)),
        asked_answers=(*request.asked_answers, *(it.key for it in done)),
        asked_facts=(*request.asked_facts, *(it.target_fact for it in done if it.target_fact)),
        seed=request.seed + NEW_RUN_SEED_STEP * len(done),
    )


def generate_into_bank(
    passage: Passage,
    request: Any,
    settings: Settings,
    token: CancelToken,
    keeper: ItemKeeper,
    *,
    expected_complexity: Callable[[str | None], int | None] | None = None,
) -> Generator[Progress, None, GeneratedBatch]:
    """Job: generate items about `passage` (a `GenerationRequest`), each finished item
    handed to `keeper` at once (output file, bank, or rescue file: see
    generation/keeper.py), so a cancel or a crash keeps the finished ones. The event that
    finishes an item carries the kept Item (with its bank id) as payload."""
    # Imported here: generation is heavy to import and must not slow the start-up. The
    # call imports the pipeline (and its model libraries), so it is inside the `try` too.
    try:
        from quizsmith.generation import GeneratedStep, generate_items

        gen = generate_items(
            passage,
            request,
            settings=settings,
            cancel=token,
            expected_complexity=expected_complexity,
        )
    except ImportError as exc:
        from quizsmith.errors import QuizsmithError

        raise QuizsmithError(
            f"Question generation is not available in this installation ({exc}).",
            "Reinstall Quizsmith with `make install`.",
        ) from exc
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            result = stop.value
            cancelled = bool(getattr(result, "cancelled", False)) or token.cancelled
            created = tuple(it.id for it in keeper.items if it.id is not None)
            changes = OpChanges(items=frozenset(created), created=created)
            return GeneratedBatch(
                list(keeper.items), getattr(result, "shortfall", None), cancelled, changes
            )
        step = event.payload
        if isinstance(step, GeneratedStep):
            item = step.item
            item.passage_id = passage.id
            item.passage = passage
            if item.subject is None:
                item.subject = passage.subject
            keeper.keep(item)
            event = Progress(event.message, event.done, event.total, item)
        yield event
