"""A true/false statement as a student reads it: the fact restated in other words (issue 44,
point 5: "true statements reworded, not copied"), with its citation marks gone.

A statement copied word for word from the passage tests whether a student recognises a
sentence, not whether they know the fact; and a copy keeps what a web page left in it
("... ten countries.[3]"). A chat generator restates the statement (`reword`); each
restatement is checked against the statement by the parser (`rewording_problem`): it keeps
the answer the item turns on (the key, or the wrong answer a false statement puts in its
place), never brings back the true answer of a false statement, keeps every named entity
and number of the statement and adds none, negates what the statement negates and no more,
and is not the statement itself. A restatement that fails is not used: the statement is
shown as the passage has it, without its web marks, and the item's notes say why.
"""

from __future__ import annotations

import random
import re
from difflib import SequenceMatcher
from typing import Any, Final

from quizsmith.errors import OutputParseError
from quizsmith.generation import prompts
from quizsmith.generation.build_context import CHAT_PROFILE, BuildContext
from quizsmith.generation.parser import parse
from quizsmith.generation.web_marks import plain
from quizsmith.generation.writer import SOURCE_WORDS, Written
from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import Provider

#: A restatement may be longer than its statement ("went to" for "won"), not a new sentence.
_MAX_GROWTH: Final = 1.6
_MAX_EXTRA_WORDS: Final = 4
_SPACE_BEFORE_MARK = re.compile(r"\s+([,.;:!?])")
#: Word sequences this alike are the statement copied with a word or two changed ("whose
#: work bridges" -> "who bridged"), not restated.
_COPY_LIKENESS: Final = 0.8
_NUMERIC_LABELS: Final = frozenset(
    {"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"}
)
_QUOTES: Final = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def false_plan(n: int, seed: int) -> list[bool]:
    """Which of a quiz's `n` true/false statements are false: half of them (the odd one out
    by the seed), in a seeded order. A coin per statement made a 5-statement quiz all true or
    all false one time in sixteen, and a quiz that is all one answer is a known cue."""
    rng = random.Random(seed)
    false = n // 2 + (n % 2 == 1 and rng.random() < 0.5)
    plan = [True] * false + [False] * (n - false)
    rng.shuffle(plan)
    return plan


def shown_statement(text: str) -> str:
    """`text` as a student sees it: its web marks (citation marks, page references,
    pronunciation guides) removed and its spacing made plain."""
    return _SPACE_BEFORE_MARK.sub(r"\1", plain(text))


def restated(
    statement: str, keep: str, drop: str | None, ctx: BuildContext, notes: list[str]
) -> tuple[str, str]:
    """A true/false statement as the item shows it, and how it was made: restated in other
    words where the generator restates (`restates`) and the restatement passes its checks,
    else as the passage has it without its web marks (with the reason in `notes`)."""
    if ctx.restates_statements:
        ctx.cancel.raise_if_cancelled()
        written = reword(ctx.generator, statement, keep=keep, drop=drop, seed=ctx.seed)
        if written.text:
            return written.text, "restated by the model"
        notes.append(f"statement kept as the passage has it: {written.reason}")
    return shown_statement(statement), "as the passage states it"


def restates(profile: str, generator_ref: str) -> bool:
    """Whether a generator restates true/false statements: a chat generator that is not one
    of the bundled models. Measured on the standard profile's 1.5B model (docs/generation.md,
    "True/false statements"): of 120 statements from the bench's 24 passages, 102 came back
    copied or nearly so and 9 passed the checks, 4 of those with their meaning changed ("the
    Arabic monsoon" as "the monsoon in Arabic"); sampling two more at temperature 0.8 passed
    8 of 24, 5 of them with their meaning changed. A statement restated wrongly is a false
    item marked true, worse than a copy, so the bundled models keep the statement. A larger
    model of the user's own (a GGUF file, an API server) restates, under the same checks."""
    from quizsmith.providers.catalog import load_catalog

    bundled = {model.id for model in load_catalog() if model.bundled}
    return profile == CHAT_PROFILE and generator_ref not in bundled


def reword(
    provider: Provider, statement: str, *, keep: str, drop: str | None, seed: int
) -> Written:
    """`statement` restated by a chat model, checked (`rewording_problem`); `keep` is the
    answer the item turns on, `drop` the true answer a false statement replaced (or None)."""
    statement = shown_statement(statement)
    messages = prompts.reword_chat(statement)
    try:
        result = provider.chat(
            messages,
            max_tokens=120,
            temperature=0.0,
            seed=seed,
            json_schema=prompts.REWORD_SCHEMA,
            reuse_prefix=prompts.chat_head(messages[-1]["content"], prompts.REWORD_HEAD_END),
        )
    except OutputParseError as exc:
        # Like every other model call of generation (writer.py): output that does not parse
        # drops this attempt; a server or key problem stops the job with its own message.
        return Written(None, f"the model's restatement did not parse ({exc.message})")
    data: Any = result.data
    text = " ".join(str(data.get("statement", "")).split()) if isinstance(data, dict) else ""
    reason = rewording_problem(statement, text, keep=keep, drop=drop)
    return Written(None if reason else text, reason, result.seconds, result.text)


def rewording_problem(statement: str, rewording: str, *, keep: str, drop: str | None) -> str:
    """Why `rewording` cannot stand for `statement` ("" when it can). `statement` as the
    student would see it (`shown_statement`)."""
    if not rewording:
        return "the model wrote no restatement"
    if rewording.endswith("?"):
        return "the restatement is a question"
    statement, rewording = _plain_quotes(statement), _plain_quotes(rewording)
    said, new = normalize_answer(statement).split(), normalize_answer(rewording).split()
    if SequenceMatcher(None, said, new, autojunk=False).ratio() >= _COPY_LIKENESS:
        return "the restatement copies the statement"
    if len(new) > _MAX_GROWTH * len(said) + _MAX_EXTRA_WORDS:
        return "the restatement adds to the statement"
    if drop and _holds(rewording, drop) and not _holds(keep, drop):
        return f"the restatement brings back the true answer {drop!r}"
    if not _holds(rewording, keep):
        return f"the restatement leaves out {keep!r}"
    if SOURCE_WORDS.search(rewording):
        return "the restatement speaks of its source (a student sees no 'text')"
    before, after = parse(statement), parse(rewording)
    lost = [e.text for e in before.ents if not all(_holds(rewording, w) for w in _facts_of(e))]
    if lost:
        return f"the restatement changes a name or number ({lost[0]!r})"
    added = [t.text for t in after if t.like_num and not _holds(statement, t.text)]
    if added:
        return f"the restatement adds a number ({added[0]!r})"
    if _negations(before) != _negations(after):
        return "the restatement changes what is negated"
    if len(list(after.sents)) > len(list(before.sents)):
        return "the restatement is more than one sentence"
    return ""


def _facts_of(entity: Any) -> list[str]:
    """What a restatement must keep of a named entity: a number or date's figures ("about
    1760" may become "around 1760"), a name as written."""
    if entity.label_ in _NUMERIC_LABELS:
        figures = [t.text for t in entity if t.like_num or any(c.isdigit() for c in t.text)]
        if figures:
            return figures
    return [entity.text]


def _plain_quotes(text: str) -> str:
    # "Chamberlain’s" and "Chamberlain's" are one word; the model writes the plain quote.
    return text.translate(_QUOTES)


def _holds(text: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `text` as whole words (case, spacing and articles aside)."""
    wanted = normalize_answer(_plain_quotes(phrase))
    return bool(wanted) and f" {wanted} " in f" {normalize_answer(_plain_quotes(text))} "


def _negations(doc: Any) -> int:
    # The parser's negation arcs ("not", "never", "n't"): a restatement that drops or adds
    # one states the opposite.
    return sum(t.dep_ == "neg" for t in doc)
