"""Replacing one wrong answer of a multiple-choice item (issue 47): the candidates to offer
for it, those the generation kept and those found on request, the Overall estimate the item
would get with each in its place, and the replacement itself.

Replacing one changes the item's text like any edit: the editor re-scores the draft with the
live metrics and stores the scores on Save (`operations.scores.save_edited_item`). A
candidate's estimate is never stored: it describes an item nobody has typed yet.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Collection, Generator, Sequence
from dataclasses import dataclass, field

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.jobs import CancelToken, Progress
from quizsmith.operations.scores import content_signature
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


#: The metric each candidate is scored with: the headline estimate, whose option checks
#: (quality/option_checks.py) read the wrong answers.
ESTIMATE = "overall"
#: How many candidates per wrong answer are scored: each is a whole estimate (on the standard
#: profile the reader answers the question again for each), so a long list found with the
#: models is not scored entry by entry; a menu's worth, as `more_distractors.MORE` finds.
SCORED_CANDIDATES = 6


@dataclass(frozen=True)
class CandidateScore:
    """The estimate of the item with `text` in place of the wrong answer `old`."""

    old: str
    text: str
    #: The content signature of the item it was computed from (`scores.content_signature`):
    #: a front end shows it only while its item still has exactly this text.
    basis: tuple[object, ...]
    result: ScoreResult
    flags: list[Flag] = field(default_factory=list)


def with_wrong_answer(item: Item, old: str, new: str, current: Collection[str] = ()) -> Item:
    """A copy of `item` with `new` in place of the wrong answer `old` (its position; the
    credit of a new option, none), carrying only the scores that hold for it too
    (`scores_that_hold`)."""
    trial = copy.deepcopy(item)
    options = []
    swapped = False
    for option in trial.options:
        if not swapped and not option.is_key and option.text == old:
            option = dataclasses.replace(option, text=new, credit=0.0)
            swapped = True
        options.append(option)
    trial.options = options
    trial.scores = scores_that_hold(item, current)
    trial.flags = [f for f in item.flags if f.metric in trial.scores]
    return trial


def scores_that_hold(item: Item, current: Collection[str]) -> dict[str, ScoreResult]:
    """The item's scores that describe it whatever its wrong answers: computed for its text
    as it is (`current`: the caller knows which) by a metric that reads neither the options
    nor other metrics' results. What the overall model reads besides its signals (a refit may
    read NACo) then comes from this text, never from scores of older text or other options."""
    from quizsmith.errors import QuizsmithError
    from quizsmith.metrics import registry

    kept = {}
    for name, result in item.scores.items():
        if name not in current or not result.scored or name in (ESTIMATE, "signals"):
            continue
        try:
            metric = registry.get(name)
        except QuizsmithError:
            continue  # a plug-in no longer installed: nothing says what it reads
        if not metric.needs_options and not metric.reads_scores:
            kept[name] = result
    return kept


ScoringJob = Callable[[CancelToken], Generator[Progress, None, list[CandidateScore]]]


def score_wrong_answers_job(
    item: Item,
    old: str,
    candidates: Sequence[str],
    settings: Settings,
    bank: ItemBank | None = None,
    current: Collection[str] = (),
) -> ScoringJob:
    """A job (token -> generator) estimating the item with each candidate in place of the
    wrong answer `old`, in order (the caller bounds them: SCORED_CANDIDATES). Each result
    comes as it is ready, as a progress payload (CandidateScore); nothing is stored.

    One metric context for the whole run, one candidate after another: the models keep the
    passage's state (its prompts' kept heads, docs/metrics.md), so the candidates after the
    first do not read the passage again."""
    base = copy.deepcopy(item)
    basis = content_signature(base)
    wanted = list(candidates)

    def job(token: CancelToken) -> Generator[Progress, None, list[CandidateScore]]:
        from quizsmith.metrics.runner import ScoredStep, score_items
        from quizsmith.operations import jobs

        total = len(wanted)
        yield Progress(f"Scoring {total} other wrong answer{'s' if total != 1 else ''}", 0, total)
        jobs.prepare_models(settings)
        ctx = jobs.metric_context(settings, token, bank)
        out: list[CandidateScore] = []
        for n, text in enumerate(wanted, 1):
            token.raise_if_cancelled()
            trial = with_wrong_answer(base, old, text, current)
            for event in score_items([trial], [ESTIMATE], ctx):
                step = event.payload
                if isinstance(step, ScoredStep):
                    out.append(CandidateScore(old, text, basis, step.result, step.flags))
                    yield Progress(f"Scored \u201c{text}\u201d ({n} of {total})", n, total, out[-1])
        return out

    return job
