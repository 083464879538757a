"""SmolLM2's tensor type: the packaged Q4_1 file against Q8_0 and Q4_0 copies (issue 16).

    .venv/bin/python bench/tensor_type.py [--reps 7] [--threads 1]

Speed: reading a 400-token prompt and generating 32 tokens greedily, each file in turn in
every repetition (so a busy moment hits all of them), medians and ratios to Q4_1 from one
run. The copies are made here with llama.cpp's quantizer, as `quizsmith models --prepare`
makes the Q8_0 one (providers/requantize.py).

Validity: with `--items N`, the outputs of the SmolLM2 file that the scores read, on the same
N QGEval questions (bench/judgement.py's interleaved order) and N NACo-style variants: NACo's
A.2 naturalness verdict (the `not-a-question` flag) and the question's fluency (the overall
estimate's `sig.q_fluency`), per file; how often the two files agree; and each file's figures
against the human labels, with 95% bootstrap intervals. Results: bench/results/tensor_type.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from common import git_revision, machine, write_results
from quizsmith.providers import catalog, requantize

PROMPT_TOKENS = 400
GENERATED = 32


def files(folder: Path) -> dict[str, Path]:
    model = catalog.find("smollm2-135m-instruct", catalog.load_catalog())
    packaged = catalog.locate(replace(model, copy={}))
    out = {"Q4_1": packaged}
    for kind in ("Q8_0", "Q4_0"):
        out[kind] = requantize.make_copy(packaged, f"smollm2.{kind}.gguf", kind, folder)
    return out


def speed(paths: dict[str, Path], reps: int, threads: int) -> dict[str, dict[str, float]]:
    from llama_cpp import Llama

    text = (Path(__file__).resolve().parents[1] / "resources" / "sample_passage.txt").read_text()
    llms = {
        k: Llama(model_path=str(p), n_ctx=2048, n_threads=threads, verbose=False)
        for k, p in paths.items()
    }
    tokens = llms["Q4_1"].tokenize(text.encode("utf-8"))[:PROMPT_TOKENS]
    prompt: dict[str, list[float]] = {k: [] for k in llms}
    gen: dict[str, list[float]] = {k: [] for k in llms}
    for _ in range(reps):
        for kind, llm in llms.items():
            llm.reset()
            started = time.perf_counter()
            llm.eval(tokens)
            prompt[kind].append(time.perf_counter() - started)
            started = time.perf_counter()
            for _ in range(GENERATED):
                llm.eval([llm.sample(temp=0.0)])
            gen[kind].append(time.perf_counter() - started)
    for llm in llms.values():
        llm.close()
    return {
        k: {
            "prompt_s": statistics.median(prompt[k]),
            "prompt_tok_s": PROMPT_TOKENS / statistics.median(prompt[k]),
            "gen_tok_s": GENERATED / statistics.median(gen[k]),
            "size_mb": paths[k].stat().st_size / 2**20,
        }
        for k in llms
    }


def _ci(x: np.ndarray, y: np.ndarray, stat: Any, n: int = 1000) -> list[float]:
    rng = np.random.default_rng(0)
    vals = []
    for _ in range(n):
        i = rng.integers(0, len(x), len(x))
        vals.append(stat(x[i], y[i]))
    return [round(float(np.nanpercentile(vals, q)), 3) for q in (2.5, 97.5)]


def _r(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.corrcoef(x, y)[0, 1]) if x.std() and y.std() else float("nan")


def validity(paths: dict[str, Path], n: int, threads: int) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parent))
    from judgement import SHARED, a2_verdict, interleaved_qgeval
    from quizsmith.evaluation.adapters import load_records
    from quizsmith.evaluation.sampling import stratified_sample
    from quizsmith.providers.llamacpp import LlamaCppProvider
    from quizsmith.quality.signals import FLUENCY_PREFIX

    variants = load_records(SHARED / "naco" / "squad_candidates.jsonl", "naco-variants")
    sets = {
        "qgeval": load_records(interleaved_qgeval(100), "qgeval")[:n],
        "variants": stratified_sample(variants, 1050, 0, whole_groups=True)[:n],
    }
    kinds = ("Q4_1", "Q8_0")
    providers = {k: LlamaCppProvider(paths[k], n_threads=threads) for k in kinds}
    rows: list[dict[str, Any]] = []
    for name, records in sets.items():
        for record in records:
            row: dict[str, Any] = {"set": name, "labels": record.labels, "role": record.role}
            for kind, provider in providers.items():
                row[f"verdict {kind}"] = a2_verdict(provider, record.item)
                row[f"fluency {kind}"] = provider.option_logprobs(
                    FLUENCY_PREFIX, [record.item.stem]
                )[0].mean
            rows.append(row)
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": {}}
    for name in ("qgeval", "variants"):
        part = [r for r in rows if r["set"] == name]
        out["n"][name] = len(part)
        flagged = {k: np.array([r[f"verdict {k}"] != "natural" for r in part]) for k in KINDS}
        out[f"{name}: verdicts agree"] = float(np.mean(flagged["Q4_1"] == flagged["Q8_0"]))
        if name == "qgeval":
            bad = np.array(
                [min(r["labels"]["clarity"], r["labels"]["fluency"]) < 2.5 for r in part]
            )
            accept = np.array([min(r["labels"].values()) >= 2.5 for r in part], dtype=float)
        else:
            bad = np.array([r["role"] in ("non_q", "shuffled_q") for r in part])
            accept = np.array(
                [r["role"] in ("refq", "annoq", "annoq_clue_refq") for r in part], dtype=float
            )
        flu = {k: np.array([r[f"fluency {k}"] for r in part]) for k in KINDS}
        out[f"{name}: fluency r between files"] = _r(flu["Q4_1"], flu["Q8_0"])
        for k in KINDS:
            f = flagged[k]
            out[f"{name}: not-a-question flagged {k}"] = int(f.sum())
            out[f"{name}: not-a-question precision {k}"] = (
                float((f & bad).sum() / f.sum()) if f.sum() else float("nan")
            )
            out[f"{name}: not-a-question recall {k}"] = float((f & bad).sum() / bad.sum())
            out[f"{name}: fluency r with acceptance {k}"] = [
                round(_r(flu[k], accept), 3),
                _ci(flu[k], accept, _r),
            ]
    return out


KINDS = ("Q4_1", "Q8_0")


def markdown(data: dict[str, Any], command: str) -> str:
    info = data["machine"]
    md = [
        "## SmolLM2 tensor type (`bench/tensor_type.py`)",
        "",
        f"Command: `.venv/bin/python {command}` at revision {data['revision']}, "
        f"{info['date']}; {info['cpu']}, {info['logical_cpus']} logical CPUs, "
        f"{data['threads']} llama.cpp thread(s). A {PROMPT_TOKENS}-token prompt read and "
        f"{GENERATED} tokens generated, {data['reps']} repetitions, each file in turn; medians.",
        "",
        "| file | size (MB) | prompt (s) | prompt tok/s | vs Q4_1 | generation tok/s | vs Q4_1 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    base = data["speed"]["Q4_1"]
    for kind, s in data["speed"].items():
        md.append(
            f"| {kind} | {s['size_mb']:.0f} | {s['prompt_s']:.3f} | {s['prompt_tok_s']:.0f} | "
            f"{s['prompt_tok_s'] / base['prompt_tok_s']:.2f}x | {s['gen_tok_s']:.0f} | "
            f"{s['gen_tok_s'] / base['gen_tok_s']:.2f}x |"
        )
    if data.get("validity"):
        v = data["validity"]
        md += [
            "",
            f"Validity, the same items with either file ({v['n']['qgeval']} QGEval questions, "
            f"{v['n']['variants']} NACo-style variants; intervals: 95% bootstrap by item; "
            f"measured by `{data.get('validity_command', command)}` at revision "
            f"{data.get('validity_revision', data['revision'])}):",
            "",
            "| measure | Q4_1 (packaged) | Q8_0 copy |",
            "| --- | --- | --- |",
        ]
        for name in ("qgeval", "variants"):
            for what in (
                "not-a-question flagged",
                "not-a-question precision",
                "not-a-question recall",
                "fluency r with acceptance",
            ):
                a, b = (v[f"{name}: {what} {k}"] for k in KINDS)
                md.append(f"| {name}: {what} | {_fmt(a)} | {_fmt(b)} |")
            md.append(
                f"| {name}: the two files' verdicts agree | {v[f'{name}: verdicts agree']:.1%} | |"
            )
            md.append(
                f"| {name}: fluency, r between the files | "
                f"{v[f'{name}: fluency r between files']:.4f} | |"
            )
    return "\n".join(md) + "\n"


def _fmt(x: Any) -> str:
    if isinstance(x, list):
        return f"{x[0]:.3f} [{x[1][0]:.3f}, {x[1][1]:.3f}]"
    if isinstance(x, float):
        return f"{x:.3f}"
    return str(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--items", type=int, default=0, help="validity on N + N items (0: skip)")
    parser.add_argument(
        "--keep-validity",
        action="store_true",
        help="time the files only; keep the validity table of the last results (it takes an "
        "hour on 2 busy cores and does not depend on the machine's load)",
    )
    args = parser.parse_args()
    kept: dict[str, Any] = {}
    if args.keep_validity:
        import json

        last = json.loads((Path(__file__).parent / "results" / "tensor_type.json").read_text())
        kept = {
            "validity": last["validity"],
            "validity_revision": last.get("validity_revision", last["revision"]),
            "validity_command": last.get("validity_command", last.get("command", "")),
        }
    with tempfile.TemporaryDirectory() as tmp:
        paths = files(Path(tmp))
        data: dict[str, Any] = {
            "machine": machine(),
            "revision": git_revision(),
            "threads": args.threads,
            "reps": args.reps,
            "speed": speed(paths, args.reps, args.threads),
        }
        command = f"bench/tensor_type.py --reps {args.reps} --threads {args.threads}"
        if args.items:
            data["validity"] = validity(paths, args.items, args.threads)
            command += f" --items {args.items}"
            data.update(validity_revision=data["revision"], validity_command=command)
        data.update(kept)
        if args.keep_validity:
            command += " --keep-validity"
    text = markdown(data, command)
    write_results("tensor_type", data, text)
    print(text)


if __name__ == "__main__":
    main()
