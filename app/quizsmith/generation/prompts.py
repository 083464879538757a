"""Generation prompts, in two profiles chosen per model (as the metrics do).

- "chat": a short instruction with JSON-schema constrained output, for instruct models that
  follow instructions (API servers, larger GGUF files).
- "fewshot": a completion prompt with worked examples, one answer per line, for the tiny
  bundled models. Measured on SmolLM2-135M: the chat + JSON prompt mostly copied the fact into
  the "question" field, while the few-shot prompt gave real questions in most samples.

The prompt version goes into every item's provenance; change it whenever a prompt changes.
"""

from __future__ import annotations

import json
from typing import Any, Final

from quizsmith.generation.distractor_kinds import indefinite_article
from quizsmith.prompt_fence import FENCE_NOTE, fence
from quizsmith.providers.base import Fixed

#: Recorded in every generated item's provenance. gen-2026.12-1: both chat question prompts
#: show the passage's first statement before a fact that points back to nothing;
#: gen-2026.12-2: the chat wrong-answer prompt shows worked examples.
PROMPT_VERSION: Final = "gen-2026.12-2"

DIFFICULTY_HINTS: Final = {
    "recall": "The question asks the student to recall the fact as stated.",
    "understanding": "The question checks that the student understood the fact, in other "
    "words than the text uses.",
    "application": "The question asks the student to apply the fact to a new situation.",
}

STEM_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"question": {"type": "string", "minLength": 8, "maxLength": 200}},
    "required": ["question"],
}

QUESTION_ANSWER_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "minLength": 8, "maxLength": 200},
        "answer": {"type": "string", "minLength": 1, "maxLength": 80},
    },
    "required": ["question", "answer"],
}

DISTRACTOR_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "wrong_answers": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 80},
            "minItems": 3,
            "maxItems": 6,
        }
    },
    "required": ["wrong_answers"],
}

REWORD_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"statement": {"type": "string"}},
    "required": ["statement"],
}
CONCEPT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "key_terms": {
            "type": "array",
            "items": {"type": "string", "minLength": 2, "maxLength": 60},
            "minItems": 1,
            "maxItems": 10,
        }
    },
    "required": ["key_terms"],
}

# Worked examples for the few-shot profile. They are general knowledge, not taken from the
# evaluation data, so that prompts are not tuned to one dataset.
_STEM_SHOTS: Final = (
    (
        "Marie Curie won the Nobel Prize in Chemistry in 1911 for discovering radium and polonium.",
        "1911",
        "In which year did Marie Curie win the Nobel Prize in Chemistry?",
    ),
    (
        "The Amazon River flows through Brazil, Peru and Colombia before reaching the "
        "Atlantic Ocean.",
        "the Atlantic Ocean",
        "Into which ocean does the Amazon River flow?",
    ),
    (
        "Photosynthesis takes place in the chloroplasts, which contain the green pigment "
        "chlorophyll.",
        "chlorophyll",
        "What green pigment do chloroplasts contain?",
    ),
)

_DISTRACTOR_SHOTS: Final = (
    (
        "In which year did Marie Curie win the Nobel Prize in Chemistry?",
        "1911",
        "1903; 1921; 1898; 1934",
    ),
    (
        "Into which ocean does the Amazon River flow?",
        "the Atlantic Ocean",
        "the Pacific Ocean; the Indian Ocean; the Caribbean Sea; the Arctic Ocean",
    ),
    (
        "What green pigment do chloroplasts contain?",
        "chlorophyll",
        "carotene; hemoglobin; melanin; xanthophyll",
    ),
)

_CONCEPT_SHOT: Final = (
    "Photosynthesis takes place in the chloroplasts, which contain the green pigment "
    "chlorophyll. Plants take in carbon dioxide through small pores called stomata.",
    "photosynthesis; chloroplasts; chlorophyll; carbon dioxide; stomata",
)


def stem_fewshot(fact: str, answer: str, difficulty: str | None) -> str:
    hint = DIFFICULTY_HINTS.get(difficulty or "", "")
    lines = [
        "Write a quiz question for the fact. The answer to the question must be the given "
        "answer, and the question must not contain the answer." + (f" {hint}" if hint else ""),
        "",
    ]
    for shot_fact, shot_answer, question in _STEM_SHOTS:
        lines += [f"Fact: {shot_fact}", f"Answer: {shot_answer}", f"Question: {question}", ""]
    lines += [f"Fact: {_one_line(fact)}", f"Answer: {_one_line(answer)}", "Question:"]
    return "\n".join(lines)


#: Where the worked examples of the chat question prompt end and the item's own part begins:
#: the prompt up to here is the same for every item, so a local model keeps its state.
STEM_CHAT_HEAD_END: Final = "Now for this study material:\n"


def stem_chat(
    fact: str, answer: str, difficulty: str | None, before: str = ""
) -> list[dict[str, str]]:
    """The model writes a question for a given answer of the fact; `before` as for
    `question_and_answer_chat`: the lines ahead of a fact that points back, else the
    passage's first statement."""
    # Worked examples (the few-shot profile's, general knowledge written for the project)
    # show what a good quiz question is; and no word of the prompt names the material as "the
    # fact" or "the text": the 1.5B model copied such words into questions ("Which volcanic
    # feature is mentioned in the fact ...?", issue 44).
    return _question_messages(
        "Good quiz questions ask for exactly the given answer, make sense on their own to a "
        "student who does not see the study material, and do not contain the answer.",
        "{fact}\nAnswer: {answer}\nQuestion: {question}",
        earlier_lines(before) + f"{fence(fact)}\nAnswer: {answer}\n\nWrite one such question "
        "whose correct answer is exactly the answer above.",
        difficulty,
        'Reply as JSON with the key "question".',
    )


def question_and_answer_chat(
    fact: str, difficulty: str | None, before: str = ""
) -> list[dict[str, str]]:
    """The model writes a question and its answer together: it asks what it can ask well,
    and the answer must be a phrase of the material (the builder checks it is a whole
    constituent of the sentence). The same worked examples as `stem_chat`, answer last.

    `before`: what the passage says just before a fact that points back ("It was closed in
    1642 ..."), else its first statement, shown ahead of the fact so that the question can
    name what the pronoun or the passage speaks of (`antecedents.context_before`); the
    answer is still asked of the fact."""
    return _question_messages(
        "Good quiz questions ask about one thing the study material states, make sense on "
        "their own to a student who does not see it, and are answered by a short phrase "
        "copied from it.",
        "{fact}\nQuestion: {question}\nAnswer: {answer}",
        earlier_lines(before)
        + f"{fence(fact)}\n\nWrite one such question and its answer, a short phrase copied "
        + ("exactly from the lines to ask about." if before else "exactly from the material."),
        difficulty,
        'Reply as JSON with the keys "question" and "answer".',
    )


def earlier_lines(before: str) -> str:
    """The lines before the fact, for context, where there are any (`before`): the item's
    own task opens with them, so a local model may keep their state as a head (`writer`)."""
    if not before:
        return ""
    return f"Earlier lines, for context:\n{fence(before)}\n\nThe lines to ask about:\n"


def _question_messages(
    rules: str, shot: str, task: str, difficulty: str | None, reply: str
) -> list[dict[str, str]]:
    """A chat question prompt: the rules, the worked examples (`shot` formats each), then,
    after STEM_CHAT_HEAD_END, the item's own `task`, the difficulty hint and the reply form."""
    hint = DIFFICULTY_HINTS.get(difficulty or "", "")
    shots = "\n\n".join(
        shot.format(fact=fence(shot_fact), answer=shot_answer, question=question)
        for shot_fact, shot_answer, question in _STEM_SHOTS
    )
    return [
        {
            "role": "system",
            "content": f"You write clear quiz questions for school students. {FENCE_NOTE}",
        },
        {
            "role": "user",
            "content": f"{rules} Examples:\n\n{shots}\n\n{STEM_CHAT_HEAD_END}{task}"
            + (f" {hint}" if hint else "")
            + f" {reply}",
        },
    ]


def chat_head(content: str, end: str = STEM_CHAT_HEAD_END) -> str:
    """The part of a chat prompt's user message up to `end`, the same for every item (rules
    and examples): what a local model keeps the state of, on disk too (`Fixed`)."""
    return Fixed(content.split(end)[0] + end)


def distractors_fewshot(question: str, answer: str) -> str:
    lines = [
        "Write four wrong but plausible answers of the same kind as the correct answer, "
        "separated by semicolons.",
        "",
    ]
    for shot_q, shot_a, wrong in _DISTRACTOR_SHOTS:
        lines += [f"Question: {shot_q}", f"Correct answer: {shot_a}", f"Wrong answers: {wrong}", ""]
    lines += [
        f"Question: {_one_line(question)}",
        f"Correct answer: {_one_line(answer)}",
        "Wrong answers:",
    ]
    return "\n".join(lines)


#: Worked examples of the chat wrong-answer prompt (general knowledge, written for the
#: project; the first three are the question prompt's): each wrong answer the same kind of
#: thing as the key and as specific (years near the year, oceans for an ocean, inventors of
#: the same age for an inventor), false according to the source.
_WRONG_ANSWER_SHOTS: Final = (
    (
        _STEM_SHOTS[0][0],
        _STEM_SHOTS[0][2],
        "1911",
        ("1903", "1921", "1898", "1934", "1908"),
    ),
    (
        _STEM_SHOTS[1][0],
        _STEM_SHOTS[1][2],
        "the Atlantic Ocean",
        (
            "the Pacific Ocean",
            "the Indian Ocean",
            "the Arctic Ocean",
            "the Southern Ocean",
            "the Caribbean Sea",
        ),
    ),
    (
        _STEM_SHOTS[2][0],
        _STEM_SHOTS[2][2],
        "chlorophyll",
        ("carotene", "haemoglobin", "melanin", "xanthophyll", "anthocyanin"),
    ),
    (
        "Alexander Graham Bell was granted the first patent for the telephone in 1876.",
        "Who was granted the first patent for the telephone?",
        "Alexander Graham Bell",
        ("Thomas Edison", "Guglielmo Marconi", "Samuel Morse", "Nikola Tesla", "Elisha Gray"),
    ),
)

#: Where the wrong-answer prompt's examples end: the prompt up to here is the same for every
#: item, so a local model keeps its state (on disk too: `chat_head`).
WRONG_ANSWERS_HEAD_END: Final = "Now for this question:\n"


def distractors_chat(
    question: str, answer: str, fact: str, kind: str | None = None
) -> list[dict[str, str]]:
    """Five wrong answers for a question and its key, after worked examples (issue 44: chat
    prompts carry worked examples; this one had none, and wrong answers of another kind or
    level were the bench's commonest fault)."""
    # The kind the question names ("Which playwright ..."), said outright: the same kind "as
    # the correct answer" alone let the play's characters in (docs/generation.md).
    asks = ""
    if kind:
        article = indefinite_article(kind)
        asks = f"The question asks for {article} {kind}: every wrong answer must be one. "
    shots = "\n\n".join(
        f"Source: {shot_fact}\nQuestion: {shot_question}\nCorrect answer: {shot_answer}\n"
        + json.dumps({"wrong_answers": list(wrong)})
        for shot_fact, shot_question, shot_answer, wrong in _WRONG_ANSWER_SHOTS
    )
    return [
        {
            "role": "system",
            "content": f"You write answer options for multiple-choice quizzes. {FENCE_NOTE}",
        },
        {
            "role": "user",
            "content": "Good wrong answers are ones a student who did not learn the fact might "
            "choose: the same kind of thing as the correct answer (a year for a year, a "
            "person for a person) and as specific, of similar length, and clearly false "
            # The 1.5B model offered "John Doe", "Jane Smith" for any person it did not know.
            "according to the source. Use real names, never placeholders such as John Doe. "
            f"Examples:\n\n{shots}\n\n{WRONG_ANSWERS_HEAD_END}"
            f"Source:\n{fence(fact)}\nQuestion: {question}\nCorrect answer: {answer}\n\n"
            f"{asks}Write five such wrong answers. "
            'Reply as JSON with the key "wrong_answers".',
        },
    ]


def concepts_fewshot(passage: str) -> str:
    text, terms = _CONCEPT_SHOT
    return (
        "List the key terms a student must learn from the text, separated by semicolons.\n\n"
        f"Text: {text}\nKey terms: {terms}\n\nText: {_one_line(passage)}\nKey terms:"
    )


def concepts_chat(passage: str) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": f"You help teachers write quizzes. {FENCE_NOTE}",
        },
        {
            "role": "user",
            "content": f"{fence(passage)}\n\nList up to ten key terms or concepts from this "
            "text that a student must learn, each exactly as written in the text. Reply as "
            'JSON with the key "key_terms".',
        },
    ]


#: Worked examples of a restatement (general knowledge, written for the project): the same
#: facts, every name and number kept, the words and their order changed.
_REWORD_SHOTS: Final = (
    (
        "Marie Curie won the Nobel Prize in Chemistry in 1911.",
        "In 1911 the Nobel Prize in Chemistry went to Marie Curie.",
    ),
    (
        "The Amazon River flows into the Atlantic Ocean.",
        "The Atlantic Ocean is where the waters of the Amazon River end up.",
    ),
    (
        "Plants take in carbon dioxide through small pores called stomata.",
        "Small pores called stomata are how plants take in carbon dioxide.",
    ),
)

#: Where the restatement prompt's examples end: the prompt up to here is the same for every
#: statement, so a local model keeps its state.
REWORD_HEAD_END: Final = "Now restate this statement:\n"


def reword_chat(statement: str) -> list[dict[str, str]]:
    """A true/false statement restated in other words (generation/true_false.py). The
    statement may be false on purpose: the model is told to keep it as it is, not to
    correct it."""
    shots = "\n\n".join(f"Statement: {said}\nRestated: {new}" for said, new in _REWORD_SHOTS)
    return [
        {
            "role": "system",
            "content": f"You write true-or-false quiz statements for school students. {FENCE_NOTE}",
        },
        {
            "role": "user",
            "content": "Restate each statement in other words, as one sentence, keeping its "
            "meaning exactly: every name, number and date stays as written, nothing is added "
            "or left out, and nothing is corrected, even if the statement is wrong. Change the "
            f"wording and the word order. Examples:\n\n{shots}\n\n{REWORD_HEAD_END}"
            f"Statement: {fence(statement)}\n"
            'Reply as JSON with the key "statement".',
        },
    ]


def _one_line(text: str) -> str:
    # Few-shot prompts are line-based: a newline inside the fact would end the example early.
    return " ".join(text.split())
