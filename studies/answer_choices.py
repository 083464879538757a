"""Study: a chat generator's question written with its own answer: the answer free (the app's
prompt), or chosen from the fact's phrases, held to them by a grammar; and the answer-aware
question the builder used to fall back to where the free answer was no phrase of the fact.

Passages: QGEval's (studies/study_passages.py), none written for the prompts; the first three
targets the app would choose in each of passages FROM..TO (90 facts for 0..30). Forms, each
greedy on the standard profile's 1.5B chat generator:
- free: `writer.propose_question_and_answer` as the app calls it;
- chosen: the same prompt listing the fact's phrases (its constituents and the noun chunks and
  entities holding one), the answer an enum of them in the JSON schema;
- first: as chosen, the answer written before the question;
- aware: `writer.write_stem` for the parser's own answer, only where free failed.
Per fact and form: the question, the answer, why the question was dropped
(`writer.stem_problem`) and the key it follows (`followed_target`), to OUT.jsonl, read by hand.
Run: PYTHONPATH=app .venv/bin/python studies/answer_choices.py OUT.jsonl FROM TO FORMS

Found on the way: llama-cpp-python's JSON-schema converter writes an enum value holding a
double quote into a grammar it cannot parse, and sampling with it crashes the process
(SIGSEGV); such phrases are left out of the enum here.
"""

import json
import sys
import time
from pathlib import Path
from typing import Any

from study_passages import app_targets, qgeval

from quizsmith.generation import prompts
from quizsmith.generation.analysis import whole_phrases
from quizsmith.generation.constituent_targets import followed_target
from quizsmith.generation.writer import Written, clean_line, stem_problem, write_stem
from quizsmith.prompt_fence import fence
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings


def phrases(analysis, target) -> list[str]:
    """The fact's constituents and whole noun chunks or entities, in order, without quotes."""
    inner = [
        (c.start, c.text)
        for c in analysis.constituents
        if target.fact_start <= c.start and c.end <= target.fact_end
    ]
    inner += [
        (a, analysis.text[a:b])
        for a, b in whole_phrases(analysis, target.fact_start, target.fact_end)
    ]
    return [t for t in dict.fromkeys(t for _, t in sorted(inner)) if '"' not in t and "\\" not in t]


def chosen(gen, fact: str, choices: list[str], answer_first: bool) -> tuple[Written, str]:
    listed = "; ".join(choices)
    shot = "{fact}\nQuestion: {question}\nAnswer: {answer}"
    task = (
        f"Phrases of the material a question can ask for: {listed}\n\nWrite one such "
        "question whose answer is one of these phrases, and that phrase."
    )
    reply = 'Reply as JSON with the keys "question" and "answer".'
    question: dict[str, Any] = prompts.QUESTION_ANSWER_SCHEMA["properties"]["question"]
    answer = {"type": "string", "enum": choices}
    fields = {"question": question, "answer": answer}
    if answer_first:
        shot = "{fact}\nAnswer: {answer}\nQuestion: {question}"
        task = (
            f"Phrases of the material a question can ask for: {listed}\n\nChoose the one "
            "phrase a student should learn, and write one such question whose answer is "
            "exactly that phrase."
        )
        reply = 'Reply as JSON with the keys "answer" and "question".'
        fields = {"answer": answer, "question": question}
    messages = prompts._question_messages(
        "Good quiz questions ask about one thing the study material states, make sense on "
        "their own to a student who does not see it, and are answered by a short phrase "
        "copied from it.",
        shot,
        f"{fence(fact)}\n\n{task}",
        None,
        reply,
    )
    schema = {"type": "object", "properties": fields, "required": list(fields)}
    result = gen.chat(messages, max_tokens=140, temperature=0.0, seed=7, json_schema=schema)
    data = result.data if isinstance(result.data, dict) else {}
    stem = clean_line(str(data.get("question", "")))
    said = " ".join(str(data.get("answer", "")).split())
    reason = stem_problem(stem, said, fact) if said else "the model wrote no answer"
    return Written(None if reason else stem, reason, result.seconds, result.text), said


def main() -> None:
    from quizsmith.generation.writer import propose_question_and_answer

    out = Path(sys.argv[1])
    first, last = int(sys.argv[2]), int(sys.argv[3])
    forms = sys.argv[4].split(",")
    gen = provider_for_role("generator", Settings(n_threads=2, profile="standard"))
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    done = {r["id"] for r in rows}
    for pi, text in enumerate(qgeval()[first:last], first):
        analysis, targets = app_targets(text, 3)
        for ti, target in enumerate(targets):
            for form in forms:
                rid = f"{pi}#{ti}:{form}"
                free_ok = any(
                    r["id"] == f"{pi}#{ti}:free" and r["followed"] and not r["problem"]
                    for r in rows
                )
                if rid in done or (form == "aware" and free_ok):
                    continue
                started = time.perf_counter()
                if form == "aware":
                    written = write_stem(
                        gen,
                        "chat",
                        target.fact,
                        target.answer,
                        difficulty=None,
                        seed=7,
                        temperature=0.0,
                    )
                    said = target.answer
                elif form == "free":
                    written, said = propose_question_and_answer(
                        gen, target.fact, difficulty=None, seed=7
                    )
                else:
                    written, said = chosen(
                        gen, target.fact, phrases(analysis, target), form == "first"
                    )
                followed = followed_target(analysis, target, said, set())
                row = {
                    "id": rid,
                    "fact": target.fact,
                    "question": written.text,
                    "raw": written.raw,
                    "answer": said,
                    "problem": written.reason,
                    "followed": followed.answer if followed else None,
                    "seconds": round(time.perf_counter() - started, 2),
                }
                rows.append(row)
                with out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
                print(rid, row["problem"] or ("ok" if followed else "no phrase"), flush=True)


if __name__ == "__main__":
    main()
