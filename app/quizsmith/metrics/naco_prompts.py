"""Prompt texts for NACo (naco paper, appendix A.2), one set per prompt profile.

"chat" uses the appendix A.2 CoT-QA prompt verbatim (including the paper's typo "sentece",
kept so that capable models see exactly what GPT-3.5 saw). "fewshot" splits the same
procedure into short prompts the 135M-270M bundled models can follow; which prompt serves
which criterion was chosen by measurement (docs/metrics/naco-profiles.md).

Every prompt has an id; scores record the ids, not the texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

#: Bump an id whenever its text changes: stored scores name the prompt that produced them.
A2_ID: Final = "naco.a2.v1"
A2_STRICT_ID: Final = "naco.a2-json.v1"
FEWSHOT_ANSWER_ID: Final = "naco.fewshot-answer.v2"
FEWSHOT_STEPS_ID: Final = "naco.fewshot-steps.v2"
VERDICT_ID: Final = "naco.a2-verdict.v2"
#: The fewshot verdict stops where part 2 of the A.2 format begins (naco_parse.fewshot_verdict).
VERDICT_STOPS: Final = ("\n2.", "\n2)")

A2_TEMPLATE: Final = """\
You will be given {count} context passage{plural} and a sentence. If the sentece is a \
question, your task is to output a text span from the context passage to answer the question. \
Your answer should NOT be complete sentences.

Instructions:

1. Let's read the passage first and then read the sentence. Consider:
 (a) Is the sentence a question? If yes, what information indicates that it is a question? \
If not, output 'not a question' and stop generation.
 (b) If it is a question, considers if the question is unclear, or has grammar errors. If so, \
output 'Question unnatural'.
2. Now find the answer to the question. Speak out loud your detailed reasoning.
3. Highlight your answer between two <ans> tokens.

Format you response as follows:

1. Your response to 1a and 1b
2. Step by step reasoning:
 (a) Step 1...
 (b) Step 2...
3. Answer: <ans> [answer text] <ans>

{passages}

Sentence: {question}

Response:"""

#: The retry when the A.2 answer would not parse: the same task, the output constrained to
#: this JSON schema (backends that cannot constrain get the instruction and the schema text).
A2_STRICT_SUFFIX: Final = """

Your previous response could not be read. Answer again as one JSON object with exactly these \
fields: "natural" (false if the sentence is not a question, is unclear or has grammar errors; \
else true), "steps" (your reasoning steps, one string each), "answer" (a short text span from \
the passage; empty if the sentence is not a question)."""

A2_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "natural": {"type": "boolean"},
        "steps": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
        "answer": {"type": "string"},
    },
    "required": ["natural", "steps", "answer"],
}

#: A marker no passage contains, to cut a prompt at the place of its question.
_CUT: Final = "\x00"

# -- fewshot profile --------------------------------------------------------------------------
# Two short worked examples: enough for a base model to copy the format; longer ones cost
# prompt time on two cores without a measured gain.
_EXAMPLES: Final = (
    {
        "passages": (
            "The Eiffel Tower was built for the 1889 World's Fair in Paris. It was designed by "
            "the company of Gustave Eiffel and was the tallest structure in the world until "
            "1930.",
        ),
        "question": "Whose company designed the Eiffel Tower?",
        "steps": (
            "The passage says the tower was designed by the company of Gustave Eiffel.",
            "So the designer's name is Gustave Eiffel.",
        ),
        "answer": "Gustave Eiffel",
    },
    {
        "passages": (
            "Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891, where she "
            "studied physics. In 1903 she shared the Nobel Prize in Physics.",
        ),
        "question": "In which city did Marie Curie study physics?",
        "steps": (
            "The passage says Curie moved to Paris in 1891.",
            "It says she studied physics there.",
            "So she studied physics in Paris.",
        ),
        "answer": "Paris",
    },
)


def passages_block(passages: Sequence[str]) -> str:
    """The A.2 "Context Passage i:" lines."""
    return "\n\n".join(f"Context Passage {i}: {p}" for i, p in enumerate(passages, 1))


def a2_prompt(passages: Sequence[str], question: str) -> str:
    two = len(passages) > 1
    return A2_TEMPLATE.format(
        count="two" if two else "one",
        plural="s" if two else "",
        passages=passages_block(passages),
        question=question,
    )


def a2_reading(passages: Sequence[str]) -> tuple[str, str]:
    """The A.2 prompt up to its passages (the same for every item), and up to its sentence
    (the same for every question on these passages): a local model keeps their evaluated
    state (providers' `reuse_prefix`)."""
    head = A2_TEMPLATE.split("{passages}")[0].format(
        count="two" if len(passages) > 1 else "one", plural="s" if len(passages) > 1 else ""
    )
    return head, a2_prompt(passages, _CUT).split(_CUT)[0]


def _fewshot_passages(passages: Sequence[str]) -> str:
    if len(passages) == 1:
        return f"Passage: {passages[0]}"
    return "\n".join(f"Passage {i}: {p}" for i, p in enumerate(passages, 1))


def fewshot_answer_prompt(passages: Sequence[str], question: str) -> str:
    """Extractive answer by completion; the caller stops at the first newline. The worked
    examples go on with their reasoning steps so that the continuation below can count them."""
    shots = []
    for ex in _EXAMPLES:
        steps = "\n".join(f"Step {i}: {s}" for i, s in enumerate(ex["steps"], 1))
        shots.append(
            f"{_fewshot_passages(ex['passages'])}\nQuestion: {ex['question']}\n"
            f"Answer: {ex['answer']}\nReasoning:\n{steps}"
        )
    target = f"{_fewshot_passages(passages)}\nQuestion: {question}\nAnswer:"
    return "\n\n".join([*shots, target])


def fewshot_reading(passages: Sequence[str]) -> tuple[str, str]:
    """The few-shot answer prompt up to its passages (the worked examples) and up to its
    question (shared by the steps continuation), as for `a2_reading`."""
    prompt = fewshot_answer_prompt(passages, _CUT)
    return prompt[: prompt.rindex(_fewshot_passages(passages))], prompt.split(_CUT)[0]


def fewshot_steps_continuation(answer_prompt: str, answer: str) -> str:
    """The answer prompt continued into numbered steps (shares the answer call's prefix)."""
    return f"{answer_prompt} {answer}\nReasoning:\nStep 1:"
