"""Tried and not kept: where the question prompt's instructions stand.

    .venv/bin/python bench/stem_prompt_order.py today system first \
        > bench/results/stem-prompt-order-trial.txt

For the first eight facts of each generation-bench passage (40 facts), three attempts each
as `builder` makes them (greedy, then two sampled at 0.8), the standard profile's generator
writes a question with the instructions in one of three places:

- `today`: after the fact and answer (`prompts.stem_chat`, gen-2026.11-2);
- `system`: in the system message, the user message holding only the fact and the answer
  (gen-2026.11-3 at fd6b754, reverted): a local model keeps them with the system message;
- `first`: at the start of the user message, before the fact.

It counts the stems that pass `writer.stem_problem` and the seconds the calls took; the
printout lists each stem (docs/generation.md, "Tried and not kept").
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable

from quizsmith.generation import prompts, writer
from quizsmith.prompt_fence import FENCE_NOTE, fence
from quizsmith.providers.base import Transient
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings
from stem_context import first_facts

SYSTEM = f"You write clear quiz questions for school students. {FENCE_NOTE}"
ASK = (
    "Write one question about the fact below whose correct answer is exactly the answer "
    'given. The question must not contain the answer. Reply as JSON with the key "question".'
)
Prompt = tuple[list[dict[str, str]], str]


def today(fact: str, answer: str) -> Prompt:
    return prompts.stem_chat(fact, answer, None), "Fact:\n"


def system(fact: str, answer: str) -> Prompt:
    instructions = (
        "You write clear quiz questions for school students. For the fact and answer you are "
        "given, write one question about the fact whose correct answer is exactly that "
        "answer. The question must not contain the answer. Reply as JSON with the key "
        f'"question". {FENCE_NOTE}'
    )
    user = f"Fact:\n{fence(fact)}\nAnswer: {answer}"
    return [{"role": "system", "content": instructions}, {"role": "user", "content": user}], (
        "Fact:\n"
    )


def first(fact: str, answer: str) -> Prompt:
    lead = f"{ASK}\n\nFact:\n"
    user = f"{lead}{fence(fact)}\nAnswer: {answer}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], lead


VARIANTS: dict[str, Callable[[str, str], Prompt]] = {
    "today": today,
    "system": system,
    "first": first,
}


def main() -> None:
    settings = Settings(n_threads=2, profile="standard")
    generator = provider_for_role("generator", settings)
    facts = [(t.fact, t.answer) for _, targets in first_facts(generator) for t in targets]
    for name in sys.argv[1:] or list(VARIANTS):
        passed, reasons, started = 0, Counter[str](), time.perf_counter()
        for fact, answer in facts:
            messages, head = VARIANTS[name](fact, answer)
            lines = [f"{name} | {answer}"]
            for attempt in range(3):
                reply = generator.chat(
                    messages,
                    max_tokens=120,
                    temperature=0.0 if attempt == 0 else 0.8,
                    seed=attempt,
                    json_schema=prompts.STEM_SCHEMA,
                    reuse_prefix=(head, Transient(messages[-1]["content"])),
                )
                data = reply.data if isinstance(reply.data, dict) else {}
                stem = writer.clean_line(str(data.get("question", "")))
                why = writer.stem_problem(stem, answer, fact)
                passed += not why
                reasons[why.split("(")[0].strip() or "passed"] += 1
                lines.append(f"  {'XX' if why else 'ok'} {stem}")
            print("\n".join(lines), flush=True)
        took = round(time.perf_counter() - started)
        print(f"VARIANT {name}: {passed} of {3 * len(facts)} passed in {took} s; {dict(reasons)}")


if __name__ == "__main__":
    main()
