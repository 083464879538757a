"""Tried and not kept: does the whole passage beside the fact give better question stems?

    .venv/bin/python bench/stem_context.py > bench/results/stem-context-trial.txt

For the first eight facts of each generation-bench passage (bench/generation.py's targets),
the standard profile's generator writes a greedy stem twice: with today's prompt (the fact
and its answer, `writer.write_stem`) and with the passage (up to 3,000 characters around the
fact) fenced before them and the request that the question stand on its own. Each stem is put
through the same checks (`writer.stem_problem`). The printout is read by hand
(docs/generation.md, "Tried and not kept").
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from generation import passages
from quizsmith.generation import pipeline, prompts, writer
from quizsmith.generation.api import GenerationRequest
from quizsmith.generation.sentences import split_sentences
from quizsmith.generation.target import Target
from quizsmith.jobs import CancelToken
from quizsmith.prompt_fence import FENCE_NOTE, fence
from quizsmith.providers.base import Provider, Transient
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings

WINDOW_CHARS = 3000
FACTS_PER_PASSAGE = 8


def window(text: str, fact: str) -> str:
    """The passage, or for a long one the run of whole sentences (at most WINDOW_CHARS)
    that holds the fact."""
    if len(text) <= WINDOW_CHARS:
        return text
    chunks: list[tuple[int, int]] = []
    first = last = None
    for sentence in split_sentences(text):
        if first is not None and last is not None and sentence.end - first > WINDOW_CHARS:
            chunks.append((first, last))
            first = None
        first = sentence.start if first is None else first
        last = sentence.end
    if first is not None and last is not None:
        chunks.append((first, last))
    at = text.find(fact)
    return next((text[a:b] for a, b in chunks if a <= at < b), text[:WINDOW_CHARS])


def with_passage(passage: str, fact: str, answer: str) -> tuple[list[dict[str, str]], tuple]:
    head = f"Passage:\n{fence(passage)}\n\n"
    user = (
        f"{head}Fact from the passage:\n{fence(fact)}\nAnswer: {answer}\n\n"
        "Write one question about this fact whose correct answer is exactly the answer above. "
        "Students see the question without the passage, so it must make sense on its own: name "
        'the people and things it asks about (never "the speaker", "these" or "this"). '
        'The question must not contain the answer. Reply as JSON with the key "question".'
    )
    system = f"You write clear quiz questions for school students. {FENCE_NOTE}"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return messages, ("Passage:\n", head, Transient(user))


def first_facts(generator: Provider) -> Iterator[tuple[str, list[Target]]]:
    """(passage name, its first FACTS_PER_PASSAGE targets) for each generation-bench passage,
    found as `generate_items` finds them."""
    for name, text in passages():
        request = GenerationRequest(n=5, types=("mcq",))
        sentences = split_sentences(text)
        targets = pipeline._targets(text, sentences, request, generator, "chat", CancelToken())
        yield name, targets[:FACTS_PER_PASSAGE]


def main() -> None:
    settings = Settings(n_threads=2, profile="standard")
    generator = provider_for_role("generator", settings)
    texts = dict(passages())
    for name, targets in first_facts(generator):
        text = texts[name]
        print("=====", name, len(targets), flush=True)
        for target in targets:
            fact, answer = target.fact, target.answer
            print("FACT:", fact[:160], "| ANSWER:", answer)
            started = time.perf_counter()
            old = writer.write_stem(
                generator, "chat", fact, answer, difficulty=None, seed=0, temperature=0.0
            )
            took = time.perf_counter() - started
            print(f"  old {took:4.1f}s:", old.text or f"DROPPED ({old.reason}) {old.raw}")
            messages, heads = with_passage(window(text, fact), fact, answer)
            started = time.perf_counter()
            reply = generator.chat(
                messages,
                max_tokens=120,
                temperature=0.0,
                seed=0,
                json_schema=prompts.STEM_SCHEMA,
                reuse_prefix=heads,
            )
            data = reply.data if isinstance(reply.data, dict) else {}
            stem = writer.clean_line(str(data.get("question", "")))
            reason = writer.stem_problem(stem, answer, fact)
            took = time.perf_counter() - started
            print(f"  new {took:4.1f}s:", stem, f"DROPPED ({reason})" if reason else "", flush=True)


if __name__ == "__main__":
    main()
