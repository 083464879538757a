"""Reader signals: a model that can read answers the question from the passage (issue 26).

The light profile's 135M/270M models cannot answer a question from a passage, so its signals
only ask how likely texts are. The standard profile's 1.5B instruct model can: it reads the
passage and answers in a chat, as NACo's answerability asks (token F1 of its answer with the
key), and the key's likelihood as its answer shows whether the question points at the key.
Measured on QGEval (bench/standard_reader.py, docs/evaluation.md): the reader's answer F1
alone correlates with the raters' answer consistency far better than any light signal.

- `reader_f1`: greedy chat answer ("the shortest phrase from the passage"), SQuAD token F1
  with the key;
- `reader_key_lp`: the key's mean token log-probability as the reply in that same chat
  (`Provider.reply_logprobs`);

Both share one prompt up to the question: the passage is read once per item and its state
kept, so a re-score after a stem edit reads only the question and the answer. (Until
READER_VERSION 2 the likelihood was read after "Text: passage / Question: q / Answer:" as
plain text, a second reading of the passage that made an item's first score 6 s on 2 cores.)
A third signal, the likelihood's gain over a question that asks nothing, was dropped with
version 2: the overall estimate did as well without it (QGEval out of fold, r 0.473 against
0.475, paired difference -0.002 [-0.012, +0.009]; docs/evaluation.md) and it cost a call.
"""

from __future__ import annotations

from typing import Any

from quizsmith.domain import Flag
from quizsmith.metrics.squad import f1_score
from quizsmith.providers.base import Provider, Transient

READER_SIGNALS: tuple[str, ...] = ("reader_f1", "reader_key_lp")
READER_SYSTEM = (
    "You answer questions about a passage. Reply with the shortest phrase from the passage "
    "that answers the question, and nothing else."
)
ANSWER_TOKENS = 32
#: Which form of the key likelihoods the reader computes; an overall model fitted on another
#: is refused (quality/overall_model.py). 1: after "Text: passage / Question: q / Answer:" as
#: plain text; 2: as the reply in the reader's own chat, which shares the passage's state with
#: the answer (one passage reading per item instead of two).
READER_VERSION = 2
#: Where the reader answers otherwise (F1 0) *and* its key's mean log-probability as the
#: reply is below this, the question most likely asks for something else: the cut the
#: reader_flag study (studies/README.md) picks on all of QGEval (the highest with training
#: precision >= 0.65, -0.62). Chosen the same way in each of 5 passage-grouped folds (cuts
#: -0.26 to -0.87), the rule was right on 64% [56%, 74%] of the 466 questions it raised out
#: of fold (answer consistency < 2.5; base rate 26%; recall 39%). Measured for
#: READER_VERSION 2 only.
KEY_UNLIKELY_BELOW = -0.62
#: The reader answered otherwise and finds the key unlikely (a warning; `reader_flag`).
READER_REJECTS_KEY = "reader-rejects-key"
#: The reader's answer holds the key and more ("pyrimidines and purines" for the key
#: "pyrimidines"): the question may ask for more than the key. A hint: on 3,000 QGEval
#: questions it was raised on 192, of which 33% [24%, 45%] were rated below 2.5 for answer
#: consistency (base rate 26%), far from the 0.6 a warning needs.
READER_ANSWERS_MORE = "reader-answers-more"


#: What every reader prompt starts with after the system prompt: kept, so that the first
#: score of an item on a new passage does not read the instructions again (about 40 tokens).
PASSAGE_LEAD = "Passage: "


def _reading(passage: str, question: str) -> tuple[list[dict[str, str]], tuple[str, ...]]:
    """The reader's chat (system prompt, passage, question) and its reusable heads: the
    instructions (the same for every passage), the passage block, kept for every question,
    and the whole question, which `reader_answer` reads and `key_mean_logprob` then finds in
    the cache (Transient: not kept after)."""
    passage_block = f"{PASSAGE_LEAD}{passage}\n\n"
    asked = f"{passage_block}Question: {question}"
    messages = [
        {"role": "system", "content": READER_SYSTEM},
        {"role": "user", "content": asked},
    ]
    return messages, (PASSAGE_LEAD, passage_block, Transient(asked))


def reader_answer(model: Provider, passage: str, question: str) -> str:
    """The model's answer to the question from the passage (greedy)."""
    messages, heads = _reading(passage, question)
    return model.chat(
        messages, max_tokens=ANSWER_TOKENS, temperature=0.0, reuse_prefix=heads
    ).text.strip()


def key_mean_logprob(model: Provider, passage: str, question: str, key: str) -> float:
    """The key's mean token log-probability as the reader's reply: the same chat as
    `reader_answer`, so the passage's kept state serves both and, right after the answer,
    the question is not read again."""
    messages, heads = _reading(passage, question)
    (scored,) = model.reply_logprobs(messages, [key.strip()], reuse_prefix=heads)
    return scored.total / max(1, scored.n_tokens)


def reader_signals(model: Provider, passage: str, question: str, key: str) -> dict[str, Any]:
    """The reader signals, and the answer itself (evidence for the teacher)."""
    answer = reader_answer(model, passage, question)
    return {
        "reader_answer": answer,
        "reader_f1": f1_score(answer, key),
        "reader_key_lp": key_mean_logprob(model, passage, question, key),
    }


def answers_more(answer: str, key: str) -> bool:
    """Whether the reader's answer holds every word of the key and more words besides (as
    SQuAD normalises answers: case, punctuation and articles aside)."""
    from quizsmith.metrics.squad import normalize_answer

    said, wanted = normalize_answer(answer).split(), normalize_answer(key).split()
    return bool(wanted) and len(said) > len(wanted) and all(w in said for w in wanted)


def disputes_key(answer: str | None, key: str, reader_f1: Any) -> bool:
    """The reader's answer is no form of the key: it shares no word with it, or it holds the
    key and more. The Overall chip is never green then (issue 47)."""
    if not isinstance(answer, str) or not answer.strip():
        return False
    return reader_f1 == 0.0 or answers_more(answer, key)


def answers_more_flag(answer: str, metric: str) -> Flag:
    return Flag(
        READER_ANSWERS_MORE,
        f"A model reading the passage answers \u201c{answer[:80]}\u201d, which holds the key "
        "and more: the question may ask for more than the key (two of them, a whole list).",
        metric,
    )


def reader_flag(answer: str, key_lp: Any, metric: str) -> Flag:
    """The reader answered something else: a warning where it also finds the key unlikely
    as its reply (measured right often enough: the reader_flag study, studies/README.md),
    else a hint."""
    quoted = f"\u201c{answer[:80]}\u201d"
    if isinstance(key_lp, int | float) and key_lp < KEY_UNLIKELY_BELOW:
        return Flag(
            READER_REJECTS_KEY,
            f"A model reading the passage answers {quoted} and finds the key an unlikely "
            "answer: the question probably asks for something else, or the key is wrong.",
            metric,
        )
    return Flag(
        "reader-differs",
        f"A model reading the passage answers {quoted}, which shares no word with the key: "
        "the question may ask for something else.",
        metric,
    )
