"""Item bank benchmark: a generated bank of 100,000 items (not a test; run it on purpose).

    .venv/bin/python bench/bank.py [--items 100000] [--seed 7]

Measures insert throughput, full-text search latency (p50/p95 over ~200 typed queries),
a filtered listing of 200 rows (status + subject, sorted by a score), JSONL export time and
the file size, prints a table and writes the raw numbers to bench/results/bank.json (the table
to docs/benchmarks.md).
Targets (the item bank issue): search p95 < 50 ms, listing p95 < 100 ms.

The data is synthetic but shaped like a real bank: passages of 60-140 words shared by ten
items each, words drawn from a subject vocabulary with a Zipf-like skew (so common words
match tens of thousands of items, as "the" or "cell" would), four options per item, tags,
two metrics' scores with evidence, some flags and reviews' statuses.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import platform
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write_results
from quizsmith.bank import ItemBank
from quizsmith.domain import Flag, Item, Passage, ScoreResult

SUBJECTS = {
    "Biology": "cell membrane nucleus protein enzyme photosynthesis chlorophyll mitochondria "
    "organism species evolution gene chromosome bacteria virus tissue organ blood oxygen "
    "carbon glucose respiration ecosystem predator habitat root leaf seed pollen",
    "History": "empire revolution treaty war king queen republic senate colony trade "
    "dynasty battle army peace parliament constitution reform rebellion crusade castle "
    "merchant plague century monarchy alliance independence frontier",
    "Physics": "force energy mass velocity acceleration gravity momentum friction wave "
    "frequency light electron magnet current voltage resistance heat pressure density "
    "orbit particle nucleus radiation lens mirror spectrum",
    "Geography": "river mountain valley desert ocean continent island climate rainfall "
    "glacier volcano earthquake plateau delta coast capital border population city "
    "latitude longitude savanna tundra monsoon erosion",
    "Literature": "novel poem author character plot theme metaphor narrator sonnet tragedy "
    "comedy chapter verse rhyme stanza hero villain irony symbol setting dialogue prose "
    "epic ballad satire fable",
    "Chemistry": "atom molecule element compound reaction acid base salt solution bond ion "
    "metal gas liquid solid catalyst oxidation electron proton neutron isotope crystal "
    "polymer alloy mixture",
    "Mathematics": "number equation function graph angle triangle circle square fraction "
    "integer prime vector matrix probability statistics mean median area volume "
    "derivative integral limit sequence theorem proof",
    "Economics": "market price demand supply inflation tax bank money trade labour capital "
    "profit cost income wage interest debt budget export import growth recession "
    "competition monopoly currency",
    "Music": "melody rhythm harmony tempo chord scale note orchestra symphony composer "
    "opera piano violin guitar drum choir pitch octave key instrument concert sonata "
    "jazz blues song",
    "Art": "painting sculpture portrait landscape colour canvas brush fresco gallery "
    "artist museum perspective shadow texture impressionism renaissance baroque mosaic "
    "sketch pigment statue design pattern style",
}
# Function words and generic question words: present in most passages and stems.
COMMON = " ".join(
    (
        "the of and in to is was which what how why when where who that by for with from as",
        "an on at this these most first main important process called known used found",
        "example between during after before because result cause effect type part form",
    )
).split()
STEMS = [
    "Which {a} is most closely linked to the {b} of the {c}?",
    "What is the main {a} of {b} in the {c}?",
    "Why does the {a} change the {b} during {c}?",
    "Which of these describes the {a} of {b}?",
    "What happens to the {a} when the {b} meets the {c}?",
    "In the passage, what causes the {a} to affect {b}?",
]
STATUSES = ["draft"] * 5 + ["accepted"] * 3 + ["rejected", "needs-review"]
TAGS = [f"unit-{n}" for n in range(1, 31)] + ["exam", "homework", "revision", "starter"]


def zipf_pick(rng: random.Random, words: list[str]) -> str:
    # Rank r drawn with weight 1/r: a few words are everywhere, most are rare.
    return words[min(int(rng.paretovariate(1.0)) - 1, len(words) - 1)]


def make_passage(rng: random.Random, subject: str, words: list[str], n: int) -> Passage:
    body = [
        rng.choice(COMMON) if rng.random() < 0.45 else zipf_pick(rng, words)
        for _ in range(rng.randint(60, 140))
    ]
    sentences = [" ".join(body[i : i + 12]).capitalize() + "." for i in range(0, len(body), 12)]
    return Passage(
        text=" ".join(sentences),
        title=f"{subject} reading {n}",
        subject=subject,
        source_file=f"{subject.lower()}-{n}.txt",
    )


def make_item(rng: random.Random, subject: str, words: list[str], passage: Passage) -> Item:
    pick = lambda: zipf_pick(rng, words)  # noqa: E731 - a local shorthand
    stem = rng.choice(STEMS).format(a=pick(), b=pick(), c=pick())
    choices: list[str] = []
    while len(choices) < 4:
        text = " ".join(pick() for _ in range(rng.randint(1, 3)))
        if text not in choices:
            choices.append(text)
    key, distractors = choices[0], choices[1:]
    scores: dict[str, ScoreResult] = {}
    if rng.random() < 0.85:
        steps = rng.choice([1, 2, 2, 2, 3, 3, 4])
        scores["naco"] = ScoreResult(
            metric="naco",
            value=round(rng.random(), 4),
            values={
                "n": 1,
                "a": round(rng.random(), 3),
                "c": round(rng.random(), 3),
                "steps": steps,
            },
            evidence={
                "cot": f"Step 1: find {key} in the passage. Step 2: match it to the question."
            },
            model_config={"model": "smollm2-135m", "samples": 3, "temperature": 0.7},
            seconds=round(rng.uniform(1, 6), 2),
        )
    if rng.random() < 0.6:
        scores["kda"] = ScoreResult(
            metric="kda",
            value=round(rng.random(), 4),
            values={"disc": round(rng.random(), 3), "cont": round(rng.random(), 3)},
            model_config={"solvers": ["gemma3-270m:letter", "gemma3-270m:likelihood"]},
        )
    flags = (
        [Flag("answer-differs", f"The model answered {distractors[0]!r}.", "naco")]
        if rng.random() < 0.2
        else []
    )
    return Item(
        type="mcq",
        stem=stem,
        key=key,
        options=Item.make_options(key, distractors),
        target_fact=passage.text.split(".")[0] + ".",
        passage=passage,
        status=rng.choice(STATUSES),
        difficulty=rng.choice(["recall", "understanding", "application", None]),
        subject=subject,
        tags=rng.sample(TAGS, rng.randint(0, 2)),
        provenance={"model": "smollm2-135m", "prompt": "mcq-v1", "seed": rng.randint(0, 9999)},
        flags=flags,
        scores=scores,
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn, *args, **kwargs) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return (time.perf_counter() - start) * 1000, result


def queries(rng: random.Random, n: int) -> list[str]:
    vocab = [w for words in SUBJECTS.values() for w in words.split()]
    all_words = [w for s in SUBJECTS.values() for w in s.split()]
    out = []
    for k in range(n):
        kind = k % 5
        if kind == 0:  # one frequent subject word: tens of thousands of matches
            out.append(rng.choice(all_words[:3]))
        elif kind == 1:  # one rare word
            out.append(rng.choice(vocab))
        elif kind == 2:  # two words
            out.append(f"{rng.choice(vocab)} {rng.choice(vocab)}")
        elif kind == 3:  # still typing: a prefix
            word = rng.choice(vocab)
            out.append(word[: max(3, len(word) // 2)])
        else:  # a phrase from a stem
            out.append(f'"{rng.choice(["main", "causes", "describes"])} the"')
    return out


def file_size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def run(n_items: int, seed: int, workdir: Path) -> dict[str, object]:
    rng = random.Random(seed)
    path = workdir / "bench.qbank"
    subject_words = {s: w.split() for s, w in SUBJECTS.items()}
    subjects = list(SUBJECTS)
    results: dict[str, object] = {"items": n_items, "seed": seed}

    gen_start = time.perf_counter()
    passages: list[Passage] = []
    items: list[Item] = []
    for n in range(n_items):
        if n % 10 == 0:
            subject = rng.choice(subjects)
            passages.append(make_passage(rng, subject, subject_words[subject], len(passages)))
        p = passages[-1]
        items.append(make_item(rng, p.subject or "", subject_words[p.subject or ""], p))
    results["generate_s"] = time.perf_counter() - gen_start

    bank = ItemBank(path)
    batch = 1000
    start = time.perf_counter()
    for i in range(0, n_items, batch):
        bank.add_items(items[i : i + batch])
    insert_s = time.perf_counter() - start
    results["insert_s"] = insert_s
    results["insert_items_per_s"] = n_items / insert_s
    bank.close()  # checkpoints the WAL, as closing the app would
    # The generated items (millions of Python objects) would make every cyclic-GC pass
    # below take a second; the app never holds a whole bank in memory, so neither do we.
    del items, passages
    gc.collect()

    bank = ItemBank(path)
    results["file_mb"] = file_size(path) / 1e6
    results["open_ms"] = timed(lambda: ItemBank(path).close())[0]

    # Warm-up (not measured): the first queries of a process compile statements and fault
    # in the page cache, as the GUI's first keystrokes would.
    for q in queries(random.Random(seed + 1), 10):
        bank.search(q, limit=200)
    search_ms: list[float] = []
    hits: list[int] = []
    for q in queries(rng, 200):
        ms, found = timed(bank.search, q, limit=200)
        search_ms.append(ms)
        hits.append(len(found))  # type: ignore[arg-type]
    results["search_p50_ms"] = percentile(search_ms, 0.5)
    results["search_p95_ms"] = percentile(search_ms, 0.95)
    results["search_max_ms"] = max(search_ms)
    results["search_mean_hits"] = statistics.mean(hits)

    count_ms = [timed(bank.count, q)[0] for q in queries(rng, 50)]
    results["search_count_p95_ms"] = percentile(count_ms, 0.95)

    listing_ms: list[float] = []
    for k in range(100):
        ms, found = timed(
            bank.search,
            status="accepted" if k % 2 else "draft",
            subject=subjects[k % len(subjects)],
            sort_by="naco" if k % 3 else "kda",
            limit=200,
        )
        assert len(found) == 200  # type: ignore[arg-type]
        listing_ms.append(ms)
    results["listing_p50_ms"] = percentile(listing_ms, 0.5)
    results["listing_p95_ms"] = percentile(listing_ms, 0.95)

    review_ms = [
        timed(
            bank.search,
            flagged=True,
            status="needs-review",
            sort_by="naco",
            descending=False,
            min_scores={"kda": 0.2},
            limit=200,
        )[0]
        for _ in range(20)
    ]
    results["review_queue_p95_ms"] = percentile(review_ms, 0.95)

    ms, _ = timed(bank.expected_complexity, "Biology")
    results["expected_complexity_ms"] = ms

    export = workdir / "bank.jsonl"
    ms, exported = timed(bank.export_jsonl, export)
    results["export_s"] = ms / 1000
    results["export_mb"] = export.stat().st_size / 1e6
    assert exported == n_items
    bank.close()
    return results


ROWS = [
    ("insert throughput", "insert_items_per_s", "{:,.0f} items/s", None),
    ("insert time (incl. options, tags, scores, FTS)", "insert_s", "{:.1f} s", None),
    ("open bank", "open_ms", "{:.1f} ms", None),
    ("FTS search, 200 rows, p50", "search_p50_ms", "{:.1f} ms", None),
    ("FTS search, 200 rows, p95", "search_p95_ms", "{:.1f} ms", 50.0),
    ("FTS search, max", "search_max_ms", "{:.1f} ms", None),
    ("FTS match count, p95", "search_count_p95_ms", "{:.1f} ms", None),
    ("listing 200 (status+subject, by score), p50", "listing_p50_ms", "{:.1f} ms", None),
    ("listing 200 (status+subject, by score), p95", "listing_p95_ms", "{:.1f} ms", 100.0),
    ("review queue (flagged+status+threshold), p95", "review_queue_p95_ms", "{:.1f} ms", None),
    ("expected complexity (one subject)", "expected_complexity_ms", "{:.1f} ms", None),
    ("JSONL export, whole bank", "export_s", "{:.1f} s", None),
    ("JSONL file size", "export_mb", "{:.0f} MB", None),
    ("bank file size", "file_mb", "{:.0f} MB", None),
]


def table(results: dict[str, object]) -> str:
    lines = ["| measure | result | target |", "| --- | ---: | --- |"]
    for label, key, fmt, target in ROWS:
        value = float(results[key])  # type: ignore[arg-type]
        verdict = ""
        if target is not None:
            verdict = f"< {target:.0f} ms " + ("(met)" if value < target else "(MISSED)")
        lines.append(f"| {label} | {fmt.format(value)} | {verdict} |")
    return "\n".join(lines)


def machine() -> str:
    uname = " ".join(platform.uname())
    with contextlib.suppress(OSError):
        uname = subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"- `uname -a`: {uname}\n- `nproc`: {os.cpu_count()}\n"
        f"- Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}\n"
        f"- load average when the run ended (1, 5, 15 min): {load}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="quizsmith-bench-") as tmp:
        results = run(args.items, args.seed, Path(tmp))
    report = table(results)
    print(report)
    command = "python bench/bank.py" + " ".join(f" {a}" for a in (argv or sys.argv[1:]))
    write_results(
        "bank",
        {"command": command, "items": args.items, "seed": args.seed, "results": results},
        "# Item bank benchmark\n\n"
        f"Command: `{command}`\n\n{machine()}\n\n"
        f"Generated bank: {args.items:,} items (seed {args.seed}), 10 items per passage, "
        "4 options each, 0-2 tags, NACo scores on 85% and KDA on 60% of items, flags on 20%. "
        "Search and listing times are for `ItemBank.search(...)` returning complete `Item` "
        "objects (options, tags, flags, latest scores), as the GUI list would get them.\n\n"
        f"{report}\n",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
