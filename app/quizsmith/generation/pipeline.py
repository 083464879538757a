"""`generate_items`: passage -> targets -> candidates -> ranked items, as a cancellable job.

Why this module is long: `generate_items` is one generator whose steps (loading the models it
names, the targets, each target's candidates, ranking, setting aside, the shortfall) share the
run's state (the result, the items set aside, the facts that gave none), and each step announces
itself as progress from that one frame; its helpers sit beside it."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import replace
from typing import Final

from quizsmith.domain import Item, Passage
from quizsmith.errors import CancelledError, QuizsmithError
from quizsmith.generation import true_false, writer
from quizsmith.generation.analysis import PassageAnalysis, analyse
from quizsmith.generation.antecedents import antecedent_text
from quizsmith.generation.api import GeneratedStep, GenerationRequest, GenerationResult
from quizsmith.generation.builder import (
    CHAT_PROFILE,
    BuildContext,
    BuildSteps,
    Built,
    build_steps,
)
from quizsmith.generation.constituent_targets import concept_targets, passage_targets
from quizsmith.generation.distractors import named_in
from quizsmith.generation.model_names import model_name, provider_name
from quizsmith.generation.parser import PARSER_MODEL, parser_loaded, pipeline
from quizsmith.generation.rank import (
    best_first,
    kept_metrics,
    rank_metrics,
    score_candidates,
    score_kept,
)
from quizsmith.generation.sentences import split_sentences
from quizsmith.generation.target import ENGLISH_ONLY_NOTE, Target, written_without_spaces
from quizsmith.generation.targets import choose_targets
from quizsmith.jobs import CancelToken, Progress
from quizsmith.metrics.base import MetricContext
from quizsmith.providers.base import Provider
from quizsmith.providers.manager import provider_for_role
from quizsmith.quality.option_checks import OTHER_FORM, OTHER_KIND
from quizsmith.quality.reader import READER_REJECTS_KEY
from quizsmith.settings import Settings
from quizsmith.text import PassageError, check_passage

log = logging.getLogger(__name__)

TYPE_NAMES = {
    "mcq": "multiple-choice question",
    "tf": "true/false statement",
    "short": "short-answer question",
    "cloze": "fill-in-the-blank sentence",
}
#: Spare targets beyond n: a target whose candidates all fail the checks is replaced by the
#: next one instead of leaving the quiz short.
SPARE_TARGETS = 3.0
#: The fewest facts a quiz tries, however short: a one-item light quiz of the sample passage
#: tried three and made none for 3 of 6 seeds (with targets seeded by place or by their own
#: fact, 2026-12-01); with six, 8 of 8 seeds made their item.
FEWEST_TARGETS = 6
#: Twice as many for a chat generator: its one question per fact, written with its own
#: answer, is dropped for about half of all facts (the answer a whole clause, no phrase of
#: the sentence), and the answer-aware question stands in only in a second pass, where the
#: spare facts leave the quiz short (`_passes`). With 3n facts and no second pass, 3 of the
#: bench's first 10 passages made 3, 2 and 3 of 5 items. A dropped fact costs one call (~3 s
#: on the 1.5B model); where the model drops most facts the first item waits for them all.
CHAT_SPARE_TARGETS = 6.0
#: The flag of an item the overall estimate rates low (quality/metric.py): such an item is set
#: aside while spare facts remain, and fills the quiz only if they give nothing better.
LOW_ESTIMATE_FLAG = "low-overall"
#: Only this much of a long passage goes to the key-concept prompt (tiny context windows).
CONCEPT_PROMPT_CHARS = 2500
#: Where writing a ranked item's candidates ends and scoring them begins, and where scoring
#: the kept one begins, as shares of the item (progress within an item; rough, since the
#: time each part takes depends on the models).
WRITING_SHARE = 0.5
RANKED_SHARE = 0.85


#: The roles of the models that check the wrong answers (`_qa`, `_embedder`).
CHECKERS = ("qa", "embeddings")
#: How many facts that gave no item the shortfall message names (with its last reason).
SHORTFALL_FACTS = 4


def generate_items(
    passage: Passage,
    request: GenerationRequest,
    *,
    settings: Settings,
    cancel: CancelToken,
    expected_complexity: Callable[[str | None], int | None] | None = None,
) -> Generator[Progress, None, GenerationResult]:
    """Yield progress; each finished item comes as a Progress whose payload is a
    GeneratedStep. Returns what was made, with a shortfall message when fewer than `n`.

    Cancelling stops before the next model call and returns the finished items (they were
    also yielded one by one), so a caller never loses work. Bad passages raise PassageError
    before any model is loaded.
    """
    started = time.perf_counter()
    result = GenerationResult()
    text = check_passage(passage.text)
    sentences = split_sentences(text)
    if not sentences:
        raise PassageError(
            "The passage has no sentences to ask about.", "Paste a passage of full sentences."
        )
    n = request.n
    set_aside: list[Item] = []
    #: Each fact that gave no item, with the last reason, in the order tried (pinned first).
    gave_none: dict[str, str] = {}
    yield Progress("Reading the passage", 0, n)
    try:
        # Each slow step says what it is: the first minute used to read "Reading the
        # passage" throughout (issue 27).
        # Each names what it loads (issue 47: the first run's two minutes read "Finding facts").
        writer_name = model_name(settings.role("generator"))
        yield Progress(f"Loading the question-writing model ({writer_name})", 0, n)
        # Checked after each announcement: Cancel stops before the next model step.
        cancel.raise_if_cancelled()
        generator = provider_for_role("generator", settings)
        profile = writer.profile_for(generator, settings)
        if not parser_loaded():
            yield Progress(f"Loading the English parser ({model_name(PARSER_MODEL)})", 0, n)
            cancel.raise_if_cancelled()
            pipeline()
        who = provider_name(generator)
        # A chat generator is not asked for key concepts (`_targets`): the parser alone reads.
        reader = "the parser" if profile == CHAT_PROFILE else who
        yield Progress(f"Finding facts to ask about ({reader} reads the passage)", 0, n)
        cancel.raise_if_cancelled()
        analysis = analyse(text)
        targets = _targets(analysis, request, generator, profile, cancel)
        if not targets and written_without_spaces(text):
            raise PassageError(ENGLISH_ONLY_NOTE, "Give a passage in English.")
        if not targets:
            raise PassageError(
                "No fact in the passage could be turned into a question (no names, numbers, "
                "dates or key terms were found).",
                "Pin a fact or an answer, or give a longer passage.",
            )
        checkers = ", ".join(dict.fromkeys(model_name(settings.role(r)) for r in CHECKERS))
        yield Progress(f"Loading the models that check the wrong answers ({checkers})", 0, n)
        cancel.raise_if_cancelled()
        qa = _qa(settings, result)
        ctx = BuildContext(
            passage=passage,
            generator=generator,
            profile=profile,
            embed=_embedder(settings, result),
            qa=qa,
            cancel=cancel,
            difficulty=request.difficulty,
            seed=request.seed,
            passage_answers=_unique(t.answer for t in targets),
            passage_terms=dict(analysis.terms),
            qa_knows_kinds=qa is not None and writer.profile_for(qa, settings) == "chat",
            made_keys={a.casefold() for a in request.avoid_answers},
            restates_statements="tf" in request.types
            and true_false.restates(profile, settings.role("generator")),
        )
        metric_ctx = MetricContext(
            settings=settings,
            cancel=cancel,
            seed=request.seed,
            expected_complexity=expected_complexity,
        )
        false_plan = true_false.false_plan(n, request.seed)
        retry: list[Target] = []

        def keys_so_far() -> list[str]:
            return [it.key for it in [*result.items, *set_aside]]

        passes = _passes(targets, retry, ctx, keys_so_far)
        for tried, target in enumerate(passes, 1):
            if len(result.items) >= n:
                break
            if target.kind != "pinned" and target.answer.casefold() in ctx.made_keys:
                # An earlier question written with its own answer took this key.
                result.dropped.append(f"{target.answer!r}: an earlier item's key already")
                continue
            made_stems = [it.stem for it in [*result.items, *set_aside]]
            if target.kind != "pinned" and given_away(target.answer, made_stems):
                # Before any model call: the quiz's own question would give the answer away.
                result.dropped.append(f"{target.answer!r}: {GIVEN_AWAY}")
                continue
            item_type = request.types[len(result.items) % len(request.types)]
            if item_type in VERBATIM_TYPES and _voiced(analysis, target):
                # Copied as it stands, the sentence would keep "we", "you" or "above".
                result.dropped.append(
                    f"{target.answer!r}: its sentence speaks to the reader or of the text "
                    f"itself, not copied into a {TYPE_NAMES[item_type]}"
                )
                continue
            done = len(result.items)
            label = f"Item {done + 1}/{n}"
            about = f"a {TYPE_NAMES[item_type]} about {_quoted(target.answer)}"
            yield Progress(f"{label}: {about}", done, n)
            cancel.raise_if_cancelled()
            ctx.seed = target.seed(request.seed)
            made_tf = sum(item.type == "tf" for item in result.items)
            ctx.false_statement = false_plan[made_tf] if item_type == "tf" else None
            # Of an item's time, writing takes about half when the candidates are ranked;
            # the rest goes to scoring them (measured shares vary with the models).
            writing = WRITING_SHARE if request.rank else 1.0
            built = yield from _announced(
                build_steps(
                    target,
                    item_type,
                    request.candidates_for(profile),
                    ctx,
                    keep=None if request.rank else 1,
                ),
                f"{label} ({about})",
                done,
                n,
                writing,
            )
            for note in built.notes:
                result.dropped.append(f"{target.answer!r}: {note}")
            if built.together_dropped and target.kind in ANSWER_AWARE_KINDS:
                retry.append(target)
            elif built.together_dropped:
                result.dropped.append(
                    f"{target.answer!r}: not asked again for this answer (such questions about "
                    "a phrase or a term read mostly bad)"
                )
            if not built.candidates:
                gave_none[target.answer] = built.notes[-1] if built.notes else "no candidate"
                continue
            gave_none.pop(target.answer, None)  # a retried fact's first reason is moot
            # Two items with one question (different keys) are one question asked twice; a
            # question already in the bank (or rejected there) is not written again. Before
            # ranking: a candidate that cannot be kept is not worth its model time.
            asked = [*request.avoid_stems, *made_stems]
            fresh = new_candidates(built.candidates, asked)
            if not fresh:
                gave_none[target.answer] = "the same question as an earlier item"
                result.dropped.append(f"{target.answer!r}: {gave_none[target.answer]}")
                continue
            # A question written with its own answer may pick another key than the target's.
            fresh = [
                c for c in fresh if target.kind == "pinned" or not given_away(c.key, made_stems)
            ]
            if not fresh:
                gave_none[target.answer] = GIVEN_AWAY
                result.dropped.append(f"{target.answer!r}: {GIVEN_AWAY}")
                continue
            ranked = fresh
            if request.rank:  # also a lone candidate: the item arrives scored
                runs = len(fresh) * len(rank_metrics(item_type))
                scoring = score_candidates(fresh, metric_ctx, label)
                yield from _spread(scoring, runs, done, n, writing, RANKED_SHARE)
                ranked = best_first(fresh)
            best, alternatives = ranked[0], ranked[1:]
            if request.rank:
                runs = len(kept_metrics(best.type, metric_ctx.settings.profile))
                scoring = score_kept(best, metric_ctx, label)
                yield from _spread(scoring, runs, done, n, RANKED_SHARE, 1.0)
            best.alternatives = alternatives
            ctx.made_keys.add(best.key.casefold())
            reason = set_aside_reason(best, few_shot=ctx.profile != CHAT_PROFILE)
            if reason and tried < len(targets) + len(retry):
                # Most items with these warnings read unusable on the bench, and a spare fact
                # may give a usable one (`set_aside_reason` says where it was measured).
                set_aside.append(best)
                result.dropped.append(
                    f"{target.answer!r}: set aside, {reason} ({best.stem!r}); a spare fact "
                    "was tried instead"
                )
                continue
            result.items.append(best)
            yield Progress(
                f"{label} ready", len(result.items), n, GeneratedStep(best, list(alternatives))
            )
    except CancelledError:
        result.cancelled = True
    # Items set aside fill the quiz when the spare facts gave nothing better (and are not
    # lost when the teacher cancels): the best-rated first.
    for item in best_first(set_aside)[: max(0, n - len(result.items))]:
        result.items.append(item)
        yield Progress(
            f"Item {len(result.items)}/{n} ready (it has a warning: no spare fact did better)",
            len(result.items),
            n,
            GeneratedStep(item, list(item.alternatives)),
        )
    result.seconds = time.perf_counter() - started
    if len(result.items) < n and not result.cancelled:
        advice = (
            ENGLISH_ONLY_NOTE
            if written_without_spaces(text)
            else "Try a longer passage, other item types, or a larger generator model."
        )
        result.shortfall = _shortfall(
            len(result.items), n, len(targets), gave_none, result.dropped, advice
        )
    return result


def _announced(
    steps: BuildSteps, label: str, done: int, n: int, share: float
) -> Generator[Progress, None, Built]:
    """The building steps of one item as progress within it (0 to `share` of the item)."""
    while True:
        try:
            step = next(steps)
        except StopIteration as stop:
            return stop.value
        yield Progress(f"{label}: {step.what}", done, n, within=step.share * share)


def _spread(
    events: Generator[Progress, None, None],
    count: int,
    done: int,
    n: int,
    start: float,
    end: float,
) -> Generator[Progress, None, None]:
    """Scoring events (each announces one of `count` metric runs) as progress within item
    `done`, from `start` to `end` of it."""
    for i, event in enumerate(events):
        within = start + (end - start) * min(i, count) / max(count, 1)
        yield Progress(event.message, done, n, event.payload, within=within)


def _targets(
    analysis: PassageAnalysis,
    request: GenerationRequest,
    generator: Provider,
    profile: str,
    cancel: CancelToken,
) -> list[Target]:
    text = analysis.text
    found = passage_targets(analysis)
    if profile != CHAT_PROFILE:
        found = [_behind_the_others(t) if t.kind == "term" else t for t in found]
    cancel.raise_if_cancelled()
    if profile != CHAT_PROFILE:
        # A few-shot generator's key concepts join the parser's; an invented term that is not
        # in the passage never becomes a target (concept_targets keeps only constituents). A
        # chat generator is not asked: it writes each question with its own answer, so it
        # picks what to ask within each target's sentence, and the call cost 13-28 s before
        # the first item (bench/generation.py, 2026-11-29).
        concepts = writer.propose_concepts(
            generator, profile, text[:CONCEPT_PROMPT_CHARS], seed=request.seed
        )
        found += concept_targets(analysis, concepts)
        found = _context_ones_behind(analysis, found)
    avoid = {a.casefold() for a in request.avoid_answers}
    found = [t for t in found if t.answer.casefold() not in avoid]
    spare = CHAT_SPARE_TARGETS if profile == CHAT_PROFILE else SPARE_TARGETS
    wanted = max(request.n, int(request.n * spare + 0.5), FEWEST_TARGETS)
    return choose_targets(
        found,
        wanted,
        pinned_facts=request.pinned_facts,
        pinned_answers=request.pinned_answers,
        seed=request.seed,
        passage_text=text,
        sentences=analysis.sentences,
        asked_answers=request.asked_answers,
        asked_facts=request.asked_facts,
    )


#: How far a defined term falls on a few-shot (light) generator: to a noun phrase's place. Its
#: tiny models find too few wrong answers for a term that pass the checks: ranked first, the
#: sample passage's terms ("structures called chloroplasts", "pores called stomata") took the
#: demo's only two tries and it made no item. A chat generator's wrong answers do pass
#: (bench/generation.py's textbook section: 5 items on its terms, 3 before). A fact that
#: points back falls as far (`_context_ones_behind`).
LIGHT_TERM_DROP = 0.5


def _behind_the_others(target: Target) -> Target:
    return replace(target, score=round(max(0.0, target.score - LIGHT_TERM_DROP), 4))


def _context_ones_behind(analysis: PassageAnalysis, found: list[Target]) -> list[Target]:
    """A few-shot generator's targets, those whose sentence points back ("It was closed in
    1642 ...") behind the others, as far as a term: its prompt shows the fact alone, so the
    question cannot say what the pronoun means. Asked alone, the 1.5B model's questions
    about such facts named it in 1 of 14 that passed the checks and something else in 5
    (studies/pronoun_context.py); the light profile's rule-made questions copy the "It"."""
    needs: dict[int, bool] = {}
    for t in found:
        if t.sentence_index not in needs:
            needs[t.sentence_index] = bool(antecedent_text(analysis, t.sentence_index))
    return [_behind_the_others(t) if needs[t.sentence_index] else t for t in found]


def _embedder(
    settings: Settings, result: GenerationResult
) -> Callable[[Sequence[str]], list[list[float]]] | None:
    try:
        return provider_for_role("embeddings", settings).embed
    except QuizsmithError as exc:
        # Generation still works without embeddings; the similarity filters are skipped and
        # the teacher is told so.
        result.dropped.append(f"embedding filters skipped: {exc.message}")
        return None


def _qa(settings: Settings, result: GenerationResult) -> Provider | None:
    try:
        qa = provider_for_role("qa", settings)
    except QuizsmithError as exc:
        result.dropped.append(f"'also true' check skipped: {exc.message}")
        return None
    if not qa.can_logprob:
        result.dropped.append("'also true' check skipped: the QA model gives no log-probabilities")
        return None
    return qa


#: The kinds of fact the second pass asks answer-aware (`_passes`): not a phrase or a term.
#: On QGEval passages not read before (`second_pass_kinds`, studies/README.md) those
#: questions read 1 usable, 5 bad of 11 ("What does chloroplasts carry out?" for "number"),
#: and 24 of their 35 facts gave none that passed the checks; names 6 and 5 of 18, numbers
#: and dates 9 and 5 of 19. On the bench they made the slowest quizzes slower: the water
#: cycle's second pass asked 26 facts, most of them phrases, for one item, which was bad.
ANSWER_AWARE_KINDS: Final = frozenset({"number", "date", "entity"})


def _passes(
    targets: list[Target],
    retry: list[Target],
    ctx: BuildContext,
    keys_so_far: Callable[[], list[str]],
) -> Iterator[Target]:
    """The targets, then, where the quiz is still short, those in `retry`
    (filled while the first pass runs: a chat generator's facts whose question with its own
    answer was dropped), asked answer-aware this time. On a passage where the 1.5B model
    answers every fact with a clause (the bench's supply-and-demand section), the first pass
    alone made no item.

    A fact whose sentence names an earlier item's key waits until the others were tried: its
    question would likely name that key and give the earlier item away (interlocking items;
    "Where was Beethoven born?" after "Who composed the Third Symphony?"). Of the standard
    bench's 120 items at cdaf489, 11 questions named an earlier key, 10 of them from a
    sentence that names it. A pinned fact is the teacher's choice and never waits. A chat
    model also reads the lines before a fact that points back (`antecedent_text`), and names
    what they speak of in most of its questions (13 of 17, studies/pronoun_context.py): a
    key named there makes the fact wait too. Of the first five targets on 200 QGEval
    passages, 226 point back, and 107 of them have an earlier target's key in those lines
    and not in their own sentence. The passage's first statement, which a chat model reads
    before any other fact (`antecedents.context_before`), is not read here: it names the
    passage's subject, often an earlier key, and every fact would wait."""
    waiting: list[Target] = []
    for target in targets:
        keys = keys_so_far()
        read = [target.fact]
        if keys and ctx.profile == CHAT_PROFILE:  # a parse: only where a key could be named
            read.append(antecedent_text(ctx.analysis, target.sentence_index))
        if target.kind != "pinned" and any(given_away(k, read) for k in keys):
            waiting.append(target)
            continue
        yield target
    yield from waiting
    ctx.answer_aware = True
    yield from list(retry)


def set_aside_reason(item: Item, few_shot: bool = False) -> str | None:
    """Why a kept item waits for the spare facts, or None: the warnings that most often mark
    an unusable item. On the standard bench items at 4082bbf the reader's warning was on four
    items (one usable, generation-readings-4082bbf.txt, git history); on QGEval 64% of the
    questions it raises were rated poor for answer consistency (metrics/flag_policy.py).

    With a few-shot generator (`few_shot`, the light profile) also a wrong answer of another
    kind or form than the key's (the option check's warning or hint), raised only where too
    few of the key's kind and form were left (`wrong_answer_sets.options_of_question`): none
    of the 102 light bench items read over sessions 1-19 with it was usable, 49 of the 396
    without (studies/option_warning_items.py); set aside on 12 bench passages, its 10
    changed items read 1 usable and 6 bad against 0 and 9, at 17 s a quiz against 16 s. Not
    with a chat generator: there the spare facts' items read no better (1 usable, 6 bad of 8,
    as did the 8 they replaced) and 5 items took a median 152 s against 98 s."""
    codes = {flag.code for flag in item.flags}
    if LOW_ESTIMATE_FLAG in codes:
        return "the overall estimate rates its best question low"
    if READER_REJECTS_KEY in codes:
        return "a model reading the passage answers its best question otherwise"
    if few_shot and codes & {OTHER_KIND, OTHER_FORM}:
        return "a wrong answer is not of the key's kind or form"
    return None


#: The item types that copy their fact sentence as it stands.
VERBATIM_TYPES = ("tf", "cloze")


def _voiced(analysis: PassageAnalysis, target: Target) -> bool:
    """Whether the target's sentence speaks in a voice of its own (`PassageAnalysis.voiced`);
    a pinned fact is the teacher's choice."""
    at = target.sentence_index
    return target.kind != "pinned" and 0 <= at < len(analysis.voiced) and analysis.voiced[at]


def _unique(values: object) -> list[str]:
    seen: dict[str, None] = {}
    for v in values:  # type: ignore[attr-defined]
        seen.setdefault(str(v), None)
    return list(seen)


def stem_key(stem: str) -> str:
    """A question as compared for "asked before": without case, spacing and punctuation."""
    return " ".join(re.sub(r"[^\w\s]", " ", stem.casefold()).split())


def new_candidates(candidates: Sequence[Item], asked_stems: Sequence[str]) -> list[Item]:
    """The candidates whose question was not asked before (`asked_stems`: the bank's
    questions about the passage, rejected ones included, and this run's), nor by an earlier
    candidate of the list."""
    asked = {stem_key(s) for s in asked_stems}
    kept = []
    for item in candidates:
        key = stem_key(item.stem)
        if key not in asked:
            asked.add(key)
            kept.append(item)
    return kept


#: Why a fact whose answer an earlier item's question names gives no item.
GIVEN_AWAY = "an earlier item's question names this answer, which would give it away"


def given_away(key: str, stems: Sequence[str]) -> bool:
    """Whether one of the quiz's questions names `key` (whole words, case and articles
    aside): a student reads the answer there. Item-writing guides call such items
    interlocking; the bench's photosynthesis quiz asked who showed that a sprig of mint
    restores air after another item asked the year Joseph Priestley showed it. The other
    way (an earlier key named in a later question) is not dropped, which would drop the
    passage's subject from every later question ("Where was Beethoven born?"): `_passes`
    lets such facts wait instead."""
    return any(named_in(key, stem) for stem in stems)


def _quoted(answer: str) -> str:
    """An answer as a progress message quotes it (short, in typographic quotes)."""
    text = " ".join(answer.split())
    return f"“{text[:40]}…”" if len(text) > 40 else f"“{text}”"


def _shortfall(
    made: int, n: int, n_targets: int, gave_none: dict[str, str], dropped: list[str], advice: str
) -> str:
    """Why fewer items came than asked: the last reason of each fact that gave none, in the
    order they were tried, so a pinned answer's reason is never crowded out by the spare
    facts tried after it (`--answer Creon` once showed only the reasons of "conscience")."""
    if gave_none:
        shown = list(gave_none.items())[:SHORTFALL_FACTS]
        why = "why each fact gave none: " + "; ".join(f"{_quoted(a)}: {r}" for a, r in shown)
        if len(gave_none) > len(shown):
            why += f"; and {len(gave_none) - len(shown)} more"
    elif dropped:
        why = "last reasons: " + "; ".join(dropped[-3:])
    else:
        why = "no more facts to ask about"
    return (
        f"Only {made} of {n} items could be made from {n_targets} candidate facts in this "
        f"passage ({why}). {advice}"
    )
