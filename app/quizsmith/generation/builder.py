"""Turn one target (fact + answer span) into candidate items of one type.

- multiple choice: a model-written stem per candidate (different seeds), the answer span as
  the key, three distractors that pass every filter;
- short answer: a model-written stem, the answer span as the key;
- fill-in-the-blank: the fact sentence with the answer blanked (no model needed);
- true/false: the fact (a chat model restates it), or the fact with a wrong answer swapped in.
"""

from __future__ import annotations

import random
import time
from typing import Any

from quizsmith.domain import TF_ANSWERS, Item, Option
from quizsmith.generation import distractors as dis
from quizsmith.generation import true_false, writer
from quizsmith.generation.antecedents import lines_before
from quizsmith.generation.build_context import CHAT_PROFILE as CHAT_PROFILE
from quizsmith.generation.build_context import BuildContext as BuildContext
from quizsmith.generation.build_context import BuildStep as BuildStep
from quizsmith.generation.build_context import BuildSteps as BuildSteps
from quizsmith.generation.build_context import Built as Built
from quizsmith.generation.constituent_targets import followed_target
from quizsmith.generation.passage_subject import naming_the_subject
from quizsmith.generation.prompts import PROMPT_VERSION
from quizsmith.generation.rule_questions import rule_stem
from quizsmith.generation.target import Target
from quizsmith.generation.targets import listed_member
from quizsmith.generation.wrong_answer_sets import options_of_question
from quizsmith.generation.wrong_answer_sets import wrong_answers as wrong_answers

BLANK = "_____"
#: Sampling temperature for the 2nd, 3rd ... candidate; the first is greedy, so a run with
#: k = 1 is deterministic and the best guess of the model is always among the candidates.
CANDIDATE_TEMPERATURE = 0.8
#: Which attempt is the rule-made question (rule_questions.rule_stem) for a few-shot
#: generator (the light profile's tiny models): the first, and where it passes the checks the
#: only one. The tiny models' own questions mostly ask for something else than the key
#: ("asks a language; the key is a century"): of the light profile's 120 bench items at
#: session 17, the 39 whose question the ranking took from the model read 2 usable, 4 to fix
#: and 33 bad, the 81 rule-made ones 7, 55 and 19 (docs/generation.md). The model writes
#: only where the rule makes no question, and two calls per item are saved.
RULE_ATTEMPT = 0
#: The stem method a rule-made question records.
RULE_METHOD = "rule: answer replaced by a question phrase"
#: What a lone question's second set of wrong answers adds to its seed (`_questions`).
DISTRACTOR_RETRY_SEED = 50


def build_candidates(
    target: Target, item_type: str, k: int, ctx: BuildContext, *, keep: int | None = None
) -> Built:
    """Up to `keep` candidates (default k) from at most k attempts: without ranking, one
    valid candidate is all that is needed, so the other attempts are not spent."""
    steps = build_steps(target, item_type, k, ctx, keep=keep)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def build_steps(
    target: Target, item_type: str, k: int, ctx: BuildContext, *, keep: int | None = None
) -> BuildSteps:
    """`build_candidates` as a generator that announces each step before it runs."""
    keep = k if keep is None else keep
    if item_type == "cloze":
        return Built([_cloze(target, ctx)])
    if item_type == "tf":
        return (yield from _true_false(target, keep, ctx))
    return (yield from _questions(target, item_type, k, keep, ctx))


def _provenance(ctx: BuildContext, seed: int, started: float, **extra: Any) -> dict[str, Any]:
    return {
        "model": ctx.generator.info.label(),
        "prompt_version": PROMPT_VERSION,
        "profile": ctx.profile,
        "seed": seed,
        "passage_hash": ctx.passage.hash,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.perf_counter() - started, 2),
        **extra,
    }


def _item(
    target: Target,
    item_type: str,
    stem: str,
    key: str,
    ctx: BuildContext,
    options: list[Option],
    provenance: dict[str, Any],
) -> Item:
    return Item(
        type=item_type,
        stem=stem,
        key=key,
        options=options,
        target_fact=target.fact,
        passage=ctx.passage,
        passage_id=ctx.passage.id,
        subject=ctx.passage.subject,
        difficulty=ctx.difficulty,
        provenance=provenance,
    )


def _cloze(target: Target, ctx: BuildContext) -> Item:
    started = time.perf_counter()
    at = target.answer_start - target.fact_start
    stem = target.fact[:at] + BLANK + target.fact[at + len(target.answer) :]
    return _item(
        target,
        "cloze",
        stem,
        target.answer,
        ctx,
        [],
        _provenance(ctx, ctx.seed, started, method="answer blanked in the fact"),
    )


def _questions(target: Target, item_type: str, k: int, keep: int, ctx: BuildContext) -> BuildSteps:
    built = Built()
    stems: list[tuple[int, str, float, str]] = []  # (seed, question, started, method)
    read: dict[str, float] = {}  # the key's reading as each kind a question asks for
    # The distractors of a multiple-choice item are one more model call.
    parts = k + (1 if item_type == "mcq" else 0)
    # A chat generator gets all k attempts and no rule-made question (CHAT_PROFILE); its
    # first writes the question with its own answer, which the target follows where that
    # answer is a whole constituent of the fact (`_together`).
    rule_attempt = -1 if ctx.profile == CHAT_PROFILE else RULE_ATTEMPT
    first = 0
    together = ctx.profile == CHAT_PROFILE and target.kind != "pinned" and not ctx.answer_aware
    if together and k > 0:
        yield BuildStep(f"writing question 1 of {k}", 0.0)
        ctx.cancel.raise_if_cancelled()
        target = _together(target, ctx, built, stems)
        first = 1
        built.together_dropped = not stems and k == 1
    # The other k - 1 attempts are answer-aware. With one candidate (a chat generator's
    # default) a dropped question with its own answer is not followed by an answer-aware one
    # at once: the fact waits for the spare facts, and is asked answer-aware only if they do
    # not fill the quiz (`pipeline`, `BuildContext.answer_aware`). Answer-aware questions
    # read far worse: on the bench at 8350983, 7 of 42 usable and 12 bad (29%) against 33 of
    # 75 and 9 (12%) for questions with their own answer; as the fallback on 62 facts of
    # QGEval passages, 10 of 27 made were bad (studies/answer_choices.py).
    # A chat model's answer-aware questions read the lines before the fact too (`lines_before`).
    chat_asks = ctx.profile == CHAT_PROFILE and k > first
    before, shared = lines_before(ctx.analysis, target.sentence_index) if chat_asks else ("", False)
    model_first = first + 1 if rule_attempt == first else first  # the model's greedy attempt
    # The rule costs no model call: where it makes no question, one candidate asked for
    # (`--candidates 1`) is still the model's, as before the rule came first.
    end = max(k, model_first + 1) if rule_attempt == first and k > 0 else k
    for attempt in range(first, end):
        if len(stems) >= keep or (stems and stems[0][3] == RULE_METHOD):
            break
        yield BuildStep(f"writing question {attempt + 1} of {end}", attempt / max(parts, end))
        # After the announcement: a Cancel pressed while it was shown stops before the call.
        ctx.cancel.raise_if_cancelled()
        started = time.perf_counter()
        seed = ctx.seed + attempt
        is_rule = attempt == rule_attempt
        written = (
            rule_stem(target)
            if is_rule
            else writer.write_stem(
                ctx.generator,
                ctx.profile,
                target.fact,
                target.answer,
                difficulty=ctx.difficulty,
                seed=seed,
                temperature=0.0 if attempt == model_first else CANDIDATE_TEMPERATURE,
                before=before,
                before_shared=shared,
            )
        )
        if written.text is None:
            built.notes.append(f"question {attempt + 1} dropped: {written.reason}")
        elif any(text == written.text for _, text, _, _ in stems):
            built.notes.append(f"question {attempt + 1} dropped: same as an earlier one")
        elif ctx.judge and (
            why := dis.key_of_another_kind(ctx.judge, written.text, target.answer, read)
        ):
            built.notes.append(f"question {attempt + 1} dropped: {why}")
        else:
            method = RULE_METHOD if is_rule else "model"
            stems.append((seed, written.text, started, method))
    # A question that speaks of the passage's subject by its class names it ("the river": the
    # Danube), read from the passage's first statement (`passage_subject`).
    subject = ctx.subject
    stems = [(sd, naming_the_subject(t, target.answer, subject), st, m) for sd, t, st, m in stems]
    if item_type == "short":
        for seed, text, started, method in stems:
            built.candidates.append(
                _item(
                    target,
                    "short",
                    text,
                    target.answer,
                    ctx,
                    [],
                    _provenance(ctx, seed, started, stem_method=method),
                )
            )
        return built
    # One distractor set per target, shared by its candidate stems: the candidates then
    # differ only in the question, which is what ranking compares, and the distractor calls
    # and checks are not repeated per stem (the "also true" check reads the first stem that
    # gave a full set).
    wanted = ctx.filter_config.wanted
    # The kind of thing asked for, the most telling any stem names ("Who wrote Antigone?": a
    # person; "Which playwright ...?": a playwright): the stems share one key, so one kind.
    # Not a defined term's own noun where no stem names a kind: a wrong answer that is "a
    # bend" would be right too (tried at d71cd03, taken back: docs/generation.md, step 5).
    asked = dis.kind_of_stems([t for _, t, _, _ in stems])
    # Where a stem names the kind ("What process ...?"), a defined term is asked about by the
    # noun the passage calls it ("Is a bend a process?" for meanders).
    described = ctx.passage_terms if asked else None
    # A lone question gets a second set of the model's wrong answers (sampled with another
    # seed) where the first leaves too few: with one candidate per fact (a chat generator's
    # default) a target had one set where three candidates had three, and 9 of 100 quizzed
    # facts came out short on the bench (2026-11-29). The first set's survivors go first.
    lone = len(stems) == 1
    tries = [(seed, text) for seed, text, _, _ in stems]
    if lone:
        tries.append((tries[0][0] + DISTRACTOR_RETRY_SEED, tries[0][1]))
    fewest = ctx.filter_config.fewest
    outcome = dis.FilterOutcome()
    enough: dis.FilterOutcome | None = None  # the fullest set with `fewest`, for want of more
    for n, (seed, text) in enumerate(tries, 1):
        yield BuildStep("choosing wrong answers and checking them", k / parts)
        earlier = outcome.kept if lone else []
        outcome, note = wrong_answers(text, target, ctx, seed, asked, described, earlier)
        if note:
            built.notes.append(note)
        if len(outcome.kept) >= wanted:
            break
        if len(outcome.kept) >= max(fewest, len(enough.kept) + 1 if enough else 0):
            enough = outcome
        if lone and n < len(tries):
            continue
        if enough is None:
            # In a teacher's words: the note reaches the window's shortfall message (issue 47).
            built.notes.append(
                f"too few good wrong answers for \u201c{text}\u201d ({len(outcome.kept)} "
                f"passed the checks, {fewest} needed)"
            )
    else:
        if enough is None:
            return built
        outcome = enough
    for seed, text, started, method in stems:
        chosen, left_out = options_of_question(
            text, target.answer, outcome, wanted, ctx.passage.text, fewest
        )
        if len(chosen) < fewest:
            built.notes.append(
                f"question {text!r} dropped: too few good wrong answers are left (it names "
                "some, or they read as another kind or form than the key)"
            )
            continue
        dropped = [*left_out, *(pair for pair in outcome.dropped if pair[0] not in chosen)]
        built.candidates.append(
            _item(
                target,
                "mcq",
                text,
                target.answer,
                ctx,
                Item.make_options(target.answer, chosen),
                _provenance(
                    ctx,
                    seed,
                    started,
                    stem_method=method,
                    distractors_dropped=_dropped_dicts(dropped),
                ),
            )
        )
    return built


#: The method a question written with its own answer records (`_together`).
TOGETHER = "model: question and answer together"


def _together(
    target: Target, ctx: BuildContext, built: Built, stems: list[tuple[int, str, float, str]]
) -> Target:
    """The model's question with its own answer for the target's fact: kept (in `stems`,
    the target then following its answer) where the answer is a whole constituent of the
    fact not asked before and the question passes the checks; else noted, target unchanged."""
    started = time.perf_counter()
    if target.fact not in ctx.together_written:
        before, shared = lines_before(ctx.analysis, target.sentence_index)
        ctx.together_written[target.fact] = writer.propose_question_and_answer(
            ctx.generator,
            target.fact,
            difficulty=ctx.difficulty,
            seed=ctx.seed,
            before=before,
            before_shared=shared,
        )
    written, answer = ctx.together_written[target.fact]
    followed = followed_target(ctx.analysis, target, answer, ctx.made_keys)
    if written.text is None:
        built.notes.append(f"question 1 dropped: {written.reason}")
    elif followed is None:
        asked = followed_target(ctx.analysis, target, answer, set()) is not None
        why = "an earlier item's key" if asked else "no phrase of the fact to ask for"
        built.notes.append(f"question 1 dropped: its answer {answer!r} is {why}")
    elif followed.answer != target.answer and listed_member(followed, ctx.analysis):
        # The model's own answer, one of a list in its sentence ("snow" of "rain, snow, sleet
        # or hail"): the list's others answer the question too, the shape `choose_targets`
        # asks last (QGEval: accepted 23% of the time against 69%, `LIST_MEMBER_COST`).
        built.notes.append(
            f"question 1 dropped: its answer {followed.answer!r} is one of a list in its "
            "sentence (the list's others answer it too)"
        )
    elif ctx.judge and (
        why := dis.key_of_another_kind(ctx.judge, written.text, followed.answer, {})
    ):
        built.notes.append(f"question 1 dropped: {why}")
    else:
        if followed.answer != target.answer:
            built.notes.append(f"the model asked for {followed.answer!r}; the key follows it")
        stems.append((ctx.seed, written.text, started, TOGETHER))
        return followed
    return target


def _true_false(target: Target, k: int, ctx: BuildContext) -> BuildSteps:
    built = Built()
    started = time.perf_counter()
    rng = random.Random(ctx.seed)
    # The quiz's plan (half false, pipeline.py), else a fair coin per target, seeded.
    make_false = ctx.false_statement if ctx.false_statement is not None else rng.random() < 0.5
    if not make_false:
        yield BuildStep("restating the fact in other words", 0.0)
        statement, method = true_false.restated(target.fact, target.answer, None, ctx, built.notes)
        built.candidates.append(
            _item(
                target,
                "tf",
                statement,
                "True",
                ctx,
                _tf_options("True"),
                _provenance(ctx, ctx.seed, started, method=method),
            )
        )
        return built
    cloze = _cloze(target, ctx).stem
    yield BuildStep("changing the fact into a false statement and checking it", 0.0)
    outcome, note = wrong_answers(f"Complete: {cloze}", target, ctx, ctx.seed)
    chosen, dropped = outcome.kept, outcome.dropped
    if note:
        built.notes.append(note)
    at = target.answer_start - target.fact_start
    for replacement in chosen[:k]:
        changed = target.fact[:at] + replacement + target.fact[at + len(target.answer) :]
        statement, method = true_false.restated(
            changed, replacement, target.answer, ctx, built.notes
        )
        built.candidates.append(
            _item(
                target,
                "tf",
                statement,
                TF_ANSWERS[1],
                ctx,
                _tf_options("False"),
                _provenance(
                    ctx,
                    ctx.seed,
                    started,
                    method=f"the fact with its answer changed, {method}",
                    changed={"from": target.answer, "to": replacement},
                    distractors_dropped=_dropped_dicts(dropped),
                ),
            )
        )
    if not built.candidates:
        built.notes.append("no false statement: no replacement for the answer passed the checks")
    return built


def _tf_options(key: str) -> list[Option]:
    return [Option(text, text == key, i) for i, text in enumerate(TF_ANSWERS)]


def _dropped_dicts(dropped: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"text": text, "reason": reason} for text, reason in dropped]
