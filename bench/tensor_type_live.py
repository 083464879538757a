"""The live set with SmolLM2's packaged Q4_1 file against a Q8_0 copy, interleaved (issue 16).

    .venv/bin/python bench/tensor_type_live.py

The item editor's live set (bench/metrics.py's `live_scenarios`: first score, after a stem
edit, after a distractor edit) on 6 SQuAD MCQs, with the solvers, qa, generator and judges
roles on either file, in the order Q4_1, Q8_0, Q8_0, Q4_1 (so a busy moment hits both);
medians over both rounds, ratio Q4_1 / Q8_0. Results: bench/results/tensor_type_live.md.
"""

from __future__ import annotations

import statistics
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from common import git_revision, machine, write_results
from metrics import items, live_scenarios
from quizsmith.metrics.base import MetricContext
from quizsmith.providers import catalog, requantize
from quizsmith.providers.host_client import forget_kept_state
from quizsmith.settings import Settings


def settings(q8: Path | None) -> Settings:
    s = Settings()
    if q8 is not None:
        ref = str(q8)
        s.roles.update(generator=ref, qa=ref, solvers=[ref, "gemma3-270m"])
        s.roles.update(judges=[ref, "gemma3-270m"])
    return s


def main() -> None:
    model = catalog.find("smollm2-135m-instruct", catalog.load_catalog())
    packaged = catalog.locate(replace(model, copy={}))
    bench_items = items(12)[6:]
    out: dict[str, dict[str, list[float]]] = {"Q4_1": {}, "Q8_0": {}}
    with tempfile.TemporaryDirectory() as tmp:
        q8 = requantize.make_copy(packaged, "smollm2.Q8_0.gguf", "Q8_0", Path(tmp))
        for kind in ("Q4_1", "Q8_0", "Q8_0", "Q4_1"):
            forget_kept_state()
            ctx = MetricContext(settings=settings(q8 if kind == "Q8_0" else None))
            for name, times in live_scenarios(bench_items, ctx).items():
                out[kind].setdefault(name, []).extend(times)
    info = machine()
    data: dict[str, Any] = {"machine": info, "revision": git_revision(), "seconds": out}
    md = [
        "## SmolLM2 tensor type: the live set (`bench/tensor_type_live.py`)",
        "",
        f"Command: `.venv/bin/python bench/tensor_type_live.py` at revision {data['revision']}, "
        f"{info['date']}; {info['cpu']}, {info['logical_cpus']} logical CPUs. The live set "
        "(overall, NACo, KDA) on 5 SQuAD MCQs after a warm-up item, with SmolLM2's roles on "
        "the packaged Q4_1 file or a Q8_0 copy, two rounds each, interleaved; medians.",
        "",
        "| live set | Q4_1 (s) | Q8_0 (s) | Q4_1 / Q8_0 |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name in out["Q4_1"]:
        if name.endswith("share"):
            continue
        a, b = statistics.median(out["Q4_1"][name]), statistics.median(out["Q8_0"][name])
        md.append(f"| {name} | {a:.2f} | {b:.2f} | {a / b:.2f}x |")
    text = "\n".join(md) + "\n"
    write_results("tensor_type_live", data, text)
    print(text)


if __name__ == "__main__":
    main()
