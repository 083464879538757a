"""NACo's A.2 prompt on the standard model, many questions at once on a lent GPU.

    # on the lent machine (the GGUF assembled under /tmp, gguf + accelerate importable):
    PYTHONPATH=app python3 bench/naco_standard_gpu.py --model /tmp/m.gguf --out $OUT/x.jsonl
    # here:
    .venv/bin/python bench/naco_standard.py --report --backend gpu

Issue 26 asks for NACo on the standard model on at least 900 QGEval questions. Through
llama.cpp a chain of thought costs about 16 s per question on one core (bench/naco_standard.py
filled 275 in a session), so this script runs the same model file on a GPU: transformers
reads the GGUF (its Q4_K_M weights dequantised; llama.cpp computes with the same weights in
other arithmetic) and samples a batch of prompts at once.

What stays the project's own: the questions (bench/naco_standard.py's order: the first 100
passages' questions shuffled, then the next 100 passages'), the prompt (the metric's A.2
prompt through the GGUF's own chat template), the parsing, the retry and the score (the
metric's `score`, which asks a provider for each answer: here one that hands back what the
batch wrote). Deviations, each because a batch cannot do otherwise:
- sampling uses torch's generator, seeded once per batch, not llama.cpp's per-call seed; the
  sampler's settings are llama.cpp's (temperature 0.7, top-k 40, top-p 0.95, min-p 0.05);
- the metric's one retry after an unreadable answer (the JSON-constrained A.2 prompt) is
  sampled without the grammar; its text still goes through the metric's JSON reader.
Per-item results (id, NACo, n/a/c, the model's text) go to --out.

    .venv/bin/python bench/naco_standard_gpu.py --rescore   # here, no model needed

re-reads the stored texts with the metric as it is now (a parser fix, say) and rewrites
bench/results/naco-standard-gpu.jsonl; a question whose first text was unreadable (its retry's
text was not stored) keeps its values.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from naco_standard import naco_values, records
from quizsmith.providers.base import ChatResult, ModelInfo, Provider

# llama-cpp-python's create_completion defaults, which the project's provider leaves as
# they are (providers/llamacpp.py passes temperature and seed only).
SAMPLER = {"top_k": 40, "top_p": 0.95, "min_p": 0.05}


class MissingAnswerError(Exception):
    """The batch has no text for this prompt yet (a retry prompt): collected, then sampled."""

    def __init__(self, key: tuple[str, int, float]) -> None:
        super().__init__(key[0][:40])
        self.key = key


class ReplayProvider(Provider):
    """Hands the NACo metric the texts a batch wrote, keyed by prompt, token cap and
    temperature; an unknown prompt raises MissingAnswerError so the caller can batch it."""

    name = "replay"
    can_chat = True
    is_local = True

    model = "qwen2.5-coder-1.5b-instruct"

    def __init__(self, model_path: Path | None, answers: dict[tuple[str, int, float], str]) -> None:
        self.model_path = model_path
        self.answers = answers

    @property
    def info(self) -> ModelInfo:
        return ModelInfo("llamacpp", self.model, {"backend": "transformers"})

    def chat(self, messages: Any, **kwargs: Any) -> ChatResult:
        prompt = messages[-1]["content"]
        key = (prompt, int(kwargs.get("max_tokens", 256)), float(kwargs.get("temperature", 0)))
        if key not in self.answers:
            raise MissingAnswerError(key)
        return ChatResult(text=self.answers[key], model=self.info.model)


class Sampler:
    """The GGUF through transformers on the GPU, sampling batches of chat prompts."""

    def __init__(self, model_file: Path, batch: int, device: str = "cuda") -> None:
        import torch
        from transformers import AutoTokenizer, Qwen2ForCausalLM

        self.torch = torch
        self.batch = batch
        self.device = device
        folder, name = str(model_file.parent), model_file.name
        self.tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = Qwen2ForCausalLM.from_pretrained(
            folder, gguf_file=name, dtype=torch.bfloat16 if device == "cuda" else torch.float32
        ).to(device)
        self.model.eval()
        self.stops = [
            self.tokenizer.convert_tokens_to_ids(t) for t in ("<|im_end|>", "<|endoftext|>")
        ]

    def sample(self, keys: list[tuple[str, int, float]], seed: int) -> dict[Any, str]:
        torch = self.torch
        out: dict[Any, str] = {}
        texts = {
            k: self.tokenizer.apply_chat_template(
                [{"role": "user", "content": k[0]}], tokenize=False, add_generation_prompt=True
            )
            for k in keys
        }
        # Similar lengths together: less padding per batch.
        ordered = sorted(keys, key=lambda k: len(texts[k]))
        for start in range(0, len(ordered), self.batch):
            chunk = ordered[start : start + self.batch]
            max_tokens = max(k[1] for k in chunk)
            temperature = chunk[0][2]
            enc = self.tokenizer(
                [texts[k] for k in chunk],
                return_tensors="pt",
                padding=True,
                add_special_tokens=False,
            ).to(self.device)
            torch.manual_seed(seed + start)
            with torch.no_grad():
                gen = self.model.generate(
                    **enc,
                    max_new_tokens=max_tokens,
                    do_sample=temperature > 0,
                    temperature=temperature if temperature > 0 else None,
                    eos_token_id=self.stops,
                    pad_token_id=self.tokenizer.pad_token_id,
                    **(SAMPLER if temperature > 0 else {}),
                )
            for k, row in zip(chunk, gen[:, enc["input_ids"].shape[1] :], strict=True):
                out[k] = self.tokenizer.decode(row[: k[1]], skip_special_tokens=True)
            print(f"batch {start // self.batch + 1}: {len(chunk)} prompts", file=sys.stderr)
        return out


RESULTS = Path(__file__).resolve().parent / "results" / "naco-standard-gpu.jsonl"


def a2_key(record: Any, opts: dict[str, Any]) -> tuple[str, int, float]:
    """What the metric's first call asks for this record: its A.2 prompt, token cap and
    temperature (the replay provider's key)."""
    from quizsmith.metrics import naco_prompts
    from quizsmith.metrics.naco import split_passages

    prompt = naco_prompts.a2_prompt(split_passages(record.item), record.item.stem)
    return (prompt, int(opts["max_tokens"]), float(opts["temperature"]))


def rescore() -> None:
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.naco import NacoMetric
    from quizsmith.settings import Settings

    rows = [json.loads(line) for line in RESULTS.read_text(encoding="utf-8").splitlines()]
    by_id = {r.record_id: r for r in ordered_records()}
    naco = NacoMetric()
    opts = naco.defaults
    settings = Settings(profile="standard")
    # No model file here to tell its size: the chat profile, as the lent machine's run had.
    settings.metrics["profiles"] = {ReplayProvider.model: "chat"}
    changed = 0
    for row in rows:
        record = by_id[row["id"]]
        replay = ReplayProvider(None, {a2_key(record, opts): row["text"]})
        ctx = MetricContext(settings=settings, seed=0, overrides={str(settings.role("qa")): replay})
        try:
            result = naco.compute(record.item, ctx)
        except MissingAnswerError:
            continue  # the retry's text was not kept
        new = naco_values(result)
        changed += any(new[k] != row[k] for k in new)
        row.update(new)
    RESULTS.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{changed} of {len(rows)} questions changed", file=sys.stderr)


def main() -> None:
    if sys.argv[1:] == ["--rescore"]:
        rescore()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="the standard model's GGUF")
    parser.add_argument("--out", type=Path, required=True, help="per-item results (JSON lines)")
    parser.add_argument("--limit", type=int, default=3000, help="questions, in their order")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--minutes", type=float, default=6.0, help="no new batch after this")
    parser.add_argument("--device", default="cuda", help="cuda, or cpu to try it out")
    args = parser.parse_args()
    # NacoMetric itself, not the registry's: the registry reads installed entry points, and
    # the lent machine runs the source tree without installing it.
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.naco import NacoMetric
    from quizsmith.settings import Settings

    started = time.monotonic()
    rows = ordered_records()[: args.limit]
    sampler = Sampler(args.model, args.batch, args.device)
    print(f"loaded in {time.monotonic() - started:.0f} s", file=sys.stderr)
    settings = Settings(profile="standard")
    naco = NacoMetric()
    opts = naco.defaults
    answers: dict[tuple[str, int, float], str] = {}
    replay = ReplayProvider(args.model, answers)
    ctx = MetricContext(settings=settings, seed=0, overrides={str(settings.role("qa")): replay})
    todo = [a2_key(record, opts) for record in rows]
    deadline = started + args.minutes * 60
    done = 0
    with args.out.open("w", encoding="utf-8") as out:
        for begin in range(0, len(rows), args.batch * 4):
            if time.monotonic() > deadline:
                break
            part = rows[begin : begin + args.batch * 4]
            batch_started = time.monotonic()
            answers.update(sampler.sample(todo[begin : begin + len(part)], seed=begin))
            for _ in range(2):  # the metric's retry prompts, sampled as a batch
                missing = []
                for record in part:
                    try:
                        naco.compute(record.item, ctx)
                    except MissingAnswerError as exc:
                        missing.append(exc.key)
                if not missing:
                    break
                answers.update(sampler.sample(missing, seed=10_000 + begin))
            seconds = (time.monotonic() - batch_started) / len(part)
            for record, key in zip(part, todo[begin : begin + len(part)], strict=True):
                try:
                    scored = naco_values(naco.compute(record.item, ctx))
                except MissingAnswerError:  # a retry still unsampled after two rounds
                    scored = {"naco": None, "n": None, "a": None, "c": None}
                row = {
                    "id": record.record_id,
                    **scored,
                    "backend": "transformers-gpu",
                    "seconds": round(seconds, 3),
                    "text": answers[key],
                }
                out.write(json.dumps(row) + "\n")
            out.flush()
            done += len(part)
            print(f"{done} scored, {time.monotonic() - started:.0f} s", file=sys.stderr)


def ordered_records() -> list[Any]:
    """bench/naco_standard.py's order (the first 100 passages' questions, shuffled), then the
    next 100 passages' questions in the same seeded shuffle."""
    first = records()
    seen = {r.record_id for r in first}
    return first + [r for r in records(200) if r.record_id not in seen]


if __name__ == "__main__":
    main()
