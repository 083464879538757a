"""Reader signals: a model that can read answers the question from the passage (issue 26).

The light profile's 135M/270M models cannot answer a question from a passage, so its signals
only ask how likely texts are. The standard profile's 1.5B instruct model can: it reads the
passage and answers in a chat, as NACo's answerability asks (token F1 of its answer with the
key), and the key's likelihood as its answer shows whether the question points at the key.
Measured on QGEval (bench/standard_reader.py, docs/evaluation.md): the reader's answer F1
alone correlates with the raters' answer consistency far better than any light signal.

- `reader_f1`: greedy chat answer ("the shortest phrase from the passage"), SQuAD token F1
  with the key;
- `reader_key_lp`: the key's mean token log-probability after
  "Text: passage / Question: q / Answer:" (plain text, so the passage state the KDA
  likelihood solver keeps for "Text: ..." is reused);
- `reader_key_gain`: that minus the same after a question that asks nothing.

The passage is a reusable prefix of every prompt, so a re-score after a stem edit reads only
the question and the answer.
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


def reader_answer(model: Provider, passage: str, question: str) -> str:
    """The model's answer to the question from the passage (greedy)."""
    passage_block = f"Passage: {passage}\n\n"
    return model.chat(
        [
            {"role": "system", "content": READER_SYSTEM},
            {"role": "user", "content": f"{passage_block}Question: {question}"},
        ],
        max_tokens=ANSWER_TOKENS,
        temperature=0.0,
        reuse_prefix=passage_block,
    ).text.strip()


def key_mean_logprob(model: Provider, passage: str, question: str, key: str) -> float:
    reading = f"Text: {passage}\n"
    prefix = f"{reading}Question: {question}\nAnswer:"
    (scored,) = model.option_logprobs(prefix, [" " + key.strip()], reuse_prefix=reading)
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
