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
- `reader_key_gain`: that minus the same after a question that asks nothing.

All three share one prompt up to the question: the passage is read once per item and its
state kept, so a re-score after a stem edit reads only the question and the answer. (Until
READER_VERSION 2 the likelihoods were read after "Text: passage / Question: q / Answer:" as
plain text, a second reading of the passage that made an item's first score 6 s on 2 cores;
the two forms agree at r 0.95 on 180 QGEval questions, docs/evaluation.md.)
"""

from __future__ import annotations

from typing import Any

from quizsmith.metrics.squad import f1_score
from quizsmith.providers.base import Provider

READER_SIGNALS: tuple[str, ...] = ("reader_f1", "reader_key_lp", "reader_key_gain")
READER_SYSTEM = (
    "You answer questions about a passage. Reply with the shortest phrase from the passage "
    "that answers the question, and nothing else."
)
#: The question that asks nothing: the key's likelihood after it is the passage's own prior.
NEUTRAL_QUESTION = "What is mentioned in the text?"
ANSWER_TOKENS = 32
#: Which form of the key likelihoods the reader computes; an overall model fitted on another
#: is refused (quality/overall_model.py). 1: after "Text: passage / Question: q / Answer:" as
#: plain text; 2: as the reply in the reader's own chat, which shares the passage's state with
#: the answer (one passage reading per item instead of two).
READER_VERSION = 2
#: Where the reader answers otherwise (F1 0) *and* its key's mean log-probability as the
#: reply is below this, the question most likely asks for something else: the cut
#: bench/reader_flag.py picks on all of QGEval (the highest with training precision >= 0.65,
#: -0.62). Chosen the same way in each of 5 passage-grouped folds (cuts -0.26 to -0.87), the
#: rule was right on 64% [56%, 74%] of the 466 questions it raised out of fold (answer
#: consistency < 2.5; base rate 26%; recall 39%). Measured for READER_VERSION 2 only.
KEY_UNLIKELY_BELOW = -0.62


def _reading(passage: str, question: str) -> tuple[list[dict[str, str]], str]:
    """The reader's chat (system prompt, passage, question) and its reusable passage block."""
    passage_block = f"Passage: {passage}\n\n"
    return [
        {"role": "system", "content": READER_SYSTEM},
        {"role": "user", "content": f"{passage_block}Question: {question}"},
    ], passage_block


def reader_answer(model: Provider, passage: str, question: str) -> str:
    """The model's answer to the question from the passage (greedy)."""
    messages, passage_block = _reading(passage, question)
    return model.chat(
        messages, max_tokens=ANSWER_TOKENS, temperature=0.0, reuse_prefix=passage_block
    ).text.strip()


def key_mean_logprob(model: Provider, passage: str, question: str, key: str) -> float:
    """The key's mean token log-probability as the reader's reply: the same chat as
    `reader_answer`, so the passage's kept state serves both (one passage reading per item,
    not two)."""
    messages, passage_block = _reading(passage, question)
    (scored,) = model.reply_logprobs(messages, [key.strip()], reuse_prefix=passage_block)
    return scored.total / max(1, scored.n_tokens)


def reader_signals(model: Provider, passage: str, question: str, key: str) -> dict[str, Any]:
    """The three reader signals, and the answer itself (evidence for the teacher)."""
    answer = reader_answer(model, passage, question)
    lp = key_mean_logprob(model, passage, question, key)
    prior = key_mean_logprob(model, passage, NEUTRAL_QUESTION, key)
    return {
        "reader_answer": answer,
        "reader_f1": f1_score(answer, key),
        "reader_key_lp": lp,
        "reader_key_gain": lp - prior,
    }
