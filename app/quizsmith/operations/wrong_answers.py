"""Replacing one wrong answer of a multiple-choice item (issue 47): the candidates to offer
for it, those the generation kept and those found on request, and the replacement itself.

Replacing one changes the item's text like any edit: the editor re-scores the draft with the
live metrics and stores the scores on Save (`operations.scores.save_edited_item`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from quizsmith.domain import Item
from quizsmith.jobs import CancelToken, Progress
from quizsmith.settings import Settings

#: Where a candidate comes from, as the menu says it.
KEPT = "kept when the item was written: it passed every check"
FOUND = "found just now: it passed every check"


@dataclass(frozen=True)
class WrongAnswer:
    text: str
    #: KEPT or FOUND.
    source: str


def kept_wrong_answers(item: Item) -> list[WrongAnswer]:
    """The wrong answers the generation found for the item and did not need (they passed
    every check; provenance "distractors_dropped"), in its order, none of the item's own
    options or key. An alternative's options that are not the item's count too: a target's
    candidate questions share their wrong answers, so these are of the key's kind."""
    from quizsmith.generation.distractors import NOT_NEEDED

    own = {o.text.casefold() for o in item.options} | {item.key.casefold()}
    texts: list[str] = []
    for entry in item.provenance.get("distractors_dropped") or []:
        if isinstance(entry, dict) and entry.get("reason") == NOT_NEEDED:
            texts.append(str(entry.get("text", "")))
    for alt in item.alternatives:
        if alt.key.casefold() == item.key.casefold():
            texts += [o.text for o in alt.options if not o.is_key]
    found: dict[str, WrongAnswer] = {}
    for text in texts:
        if text.strip() and text.casefold() not in own:
            found.setdefault(text.casefold(), WrongAnswer(text.strip(), KEPT))
    return list(found.values())


def replace_wrong_answer(distractors: Sequence[str], old: str, new: str) -> list[str]:
    """The wrong answers with `old` replaced by `new` in its place (the first `old` only)."""
    out = list(distractors)
    if old in out:
        out[out.index(old)] = new
    return out


WrongAnswersJob = Callable[[CancelToken], Generator[Progress, None, list["WrongAnswer"]]]


def more_wrong_answers_job(item: Item, settings: Settings, seed: int = 0) -> WrongAnswersJob:
    """A job (token -> generator) finding other wrong answers for `item` with the models
    (generation/more_distractors.py); returns a list of WrongAnswer."""
    from quizsmith.operations.model_loading import prepare_models

    def job(token: CancelToken) -> Generator[Progress, None, list[WrongAnswer]]:
        from quizsmith.generation.more_distractors import other_wrong_answers

        yield Progress("Finding other wrong answers (the models suggest and check them)", 0, 1)
        prepare_models(settings)
        token.raise_if_cancelled()
        found = other_wrong_answers(item, settings, token, seed=seed)
        return [WrongAnswer(text, FOUND) for text in found]

    return job
