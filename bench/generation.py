"""Benchmark: generation on the standard and the light profile, side by side (issues 26, 44).

The passages are those of bench/passages (24 original passages in six subjects, a third of
them pasted from web pages with their citation marks; README.md there lists them), in name
order, the same for both profiles. On each, a 5-item multiple-choice quiz as the app makes it
(overgenerate-and-rank: 3 candidates per target ranked by the overall estimate, which is the
live set). Each profile runs in a child process of its own, so that its peak memory (the
child's maximum resident set) is its own, and starts cold: the seconds to the first item of
the first quiz include loading the models; the other quizzes are warm.

Reported per profile: seconds to the first item and to all five (medians over the warm
quizzes, and the cold first item), items made, the mean overall estimate, the items with a
warning and how many of those a passage check confirms, exact duplicate questions (same
words, case and punctuation aside) and near duplicates (MiniLM cosine >= 0.9 between two
questions of one quiz), peak memory. Warnings are checked against the passage: an item whose
key occurs in the passage sentence nearest its question (MiniLM), whose stem reads as a
question and does not contain the key, "passes the passage check", so a warning on it is
counted as unconfirmed (a likely false alarm). Hints do not queue an item and are listed
apart.

    .venv/bin/python bench/generation.py [--profiles standard,light] [--n 5] [--threads 2]
        [--passages N] [--only NAME,NAME]

Results in bench/results/generation.{json,md}, and every item of each profile as generated
(with where its question came from: the model or the rule), in
bench/results/generation-items.md, for the readings in docs/generation.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import RESULTS, git_revision, machine, median, write_results

ROOT = Path(__file__).resolve().parent
PASSAGES = ROOT / "passages"
NEAR_DUPLICATE = 0.9


def passages(only: str = "") -> list[tuple[str, str]]:
    """(name, text) of every bench passage (or of those named in `only`), by name."""
    wanted = {n.strip() for n in only.split(",") if n.strip()}
    found = [
        (path.stem, path.read_text(encoding="utf-8"))
        for path in sorted(PASSAGES.glob("*.txt"))
        if not wanted or path.stem in wanted
    ]
    if wanted - {name for name, _ in found}:
        raise SystemExit(f"no such bench passage: {sorted(wanted - {n for n, _ in found})}")
    return found


def run_quiz(name: str, text: str, n: int, settings: Any) -> dict[str, Any]:
    from quizsmith.domain import Passage
    from quizsmith.generation import GeneratedStep, GenerationRequest, generate_items
    from quizsmith.jobs import CancelToken
    from quizsmith.metrics.flag_policy import is_hint
    from quizsmith.providers.host_client import forget_kept_state

    request = GenerationRequest(n=n, types=("mcq",), rank=True, candidates_per_target=3)
    forget_kept_state()
    started = time.perf_counter()
    items, at = [], []
    job = generate_items(
        Passage(text=text, title=name), request, settings=settings, cancel=CancelToken()
    )
    for event in job:
        if isinstance(event.payload, GeneratedStep):
            items.append(event.payload.item)
            at.append(time.perf_counter() - started)
    seconds = time.perf_counter() - started
    warned = [it for it in items if any(not is_hint(f) for f in it.flags)]
    exact, near = duplicates([it.stem for it in items])
    return {
        "passage": name,
        "words": len(text.split()),
        "seconds": seconds,
        "first_item_seconds": at[0] if at else None,
        "items": len(items),
        "overall": [
            float(s.value)
            for it in items
            if (s := it.scores.get("overall")) is not None and s.scored and s.value is not None
        ],
        "warned": len(warned),
        "warned_confirmed": sum(1 for it in warned if not passage_check(it)),
        "exact_duplicates": exact,
        "near_duplicates": near,
        "flags": [sorted({f.code for f in it.flags if not is_hint(f)}) for it in items],
        "hints": [sorted({f.code for f in it.flags if is_hint(f)}) for it in items],
        "shown": [shown(it) for it in items],
    }


def overall_of(item: Any) -> float | None:
    result = item.scores.get("overall")
    return float(result.value) if result and result.value is not None else None


def shown(item: Any) -> dict[str, Any]:
    overall = item.scores.get("overall")
    return {
        # Which of a target's question attempts was kept (0: the greedy one), and the
        # estimates of the ones ranked below it: how much the later attempts add.
        "attempt": attempt_of(item),
        "alternatives": [
            {"attempt": attempt_of(alt), "overall": overall_of(alt)}
            for alt in getattr(item, "alternatives", None) or []
        ],
        "stem": item.stem,
        "key": item.key,
        "distractors": list(item.distractors),
        "overall": float(overall.value) if overall and overall.value is not None else None,
        "flags": [f.code for f in item.flags],
        "stem_method": item.provenance.get("stem_method", ""),
    }


def attempt_of(item: Any) -> int | None:
    """The question attempt an item came from: its seed is the request's (0 here) plus 100
    per target plus the attempt (generation/pipeline.py, builder.py)."""
    seed = item.provenance.get("seed")
    return int(seed) % 100 if isinstance(seed, int) else None


def duplicates(stems: list[str]) -> tuple[int, int]:
    """(exact, near) duplicate pairs among a quiz's questions."""
    from quizsmith.metrics.squad import normalize_answer
    from quizsmith.providers import provider_for
    from quizsmith.providers.nearest import cosine, sentence_vectors

    if len(stems) < 2:
        return 0, 0
    norm = [normalize_answer(s) for s in stems]
    vectors = sentence_vectors(provider_for("all-minilm-l6-v2"), tuple(stems))
    exact = near = 0
    for i in range(len(stems)):
        for j in range(i + 1, len(stems)):
            if norm[i] == norm[j]:
                exact += 1
            elif cosine(vectors[i], vectors[j]) >= NEAR_DUPLICATE:
                near += 1
    return exact, near


def passage_check(item: Any) -> bool:
    """True when the item looks sound against its passage (see the module docstring)."""
    from quizsmith.generation.sentences import split_sentences
    from quizsmith.metrics.squad import normalize_answer
    from quizsmith.providers import provider_for
    from quizsmith.quality.signals import is_question, key_in_stem, nearest_sentences

    text = item.passage.text if item.passage else ""
    sentences = [s.text for s in split_sentences(text)] or [text]
    best, _ = nearest_sentences(provider_for("all-minilm-l6-v2"), item.stem, sentences, 1)
    in_sentence = normalize_answer(item.key) in normalize_answer(best[0])
    return in_sentence and is_question(item.stem) == 1.0 and key_in_stem(item.stem, item.key) < 1


def child(profile: str, n: int, threads: int, out: Path, count: int, only: str) -> None:
    """One profile's quizzes, cold, in this process; the results and peak memory to `out`."""
    from quizsmith.providers import catalog
    from quizsmith.settings import Settings

    settings = Settings(n_threads=threads, profile=profile)
    runs = []
    for name, text in passages(only)[:count]:
        runs.append(run_quiz(name, text, n, settings))
        print(profile, json.dumps(runs[-1])[:200], file=sys.stderr, flush=True)
    roles = {role: str(settings.role(role)) for role in ("generator", "qa")}
    from quizsmith.providers.host_client import host_memory

    # The models run in the model host (a child process): the peak is this process's and
    # the host's together, what a teacher's machine holds at once.
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_kib += host_memory().get("peak_mib", 0.0) * 1024
    generator = catalog.find(str(settings.role("generator")), catalog.load_catalog())
    out.write_text(
        json.dumps(
            {
                "profile": profile,
                "roles": roles,
                "generator": generator.name,
                "runs": runs,
                "peak_rss_mib": peak_kib / 1024,
            }
        ),
        encoding="utf-8",
    )


def summary(profile: str, data: dict[str, Any], n: int) -> str:
    runs = data["runs"]
    warm = runs[1:] or runs
    made = sum(r["items"] for r in runs)
    estimates = [v for r in runs for v in r["overall"]]
    warned = sum(r["warned"] for r in runs)
    firsts = [r["first_item_seconds"] for r in warm if r["first_item_seconds"] is not None]
    cold = runs[0]["first_item_seconds"] or float("nan")
    return (
        f"| {profile} ({data['generator']}) | {cold:.0f} | "
        f"{median(firsts) if firsts else float('nan'):.0f} | "
        f"{median([r['seconds'] for r in warm]):.0f} | {made} of {n * len(runs)} | "
        f"{sum(estimates) / len(estimates) if estimates else float('nan'):.2f} | "
        f"{warned} ({sum(r['warned_confirmed'] for r in runs)}) | "
        f"{sum(r['exact_duplicates'] for r in runs)} / {sum(r['near_duplicates'] for r in runs)} | "
        f"{data['peak_rss_mib'] / 1024:.1f} |"
    )


def items_doc(results: dict[str, dict[str, Any]]) -> str:
    """Every item, per profile, as generated (for the readings in docs/generation.md)."""
    out = []
    for profile, data in results.items():
        out += [f"### {profile} profile ({data['generator']})", ""]
        count = 0
        for run in data["runs"]:
            for item in run["shown"]:
                count += 1
                source = "rule" if str(item.get("stem_method", "")).startswith("rule") else "model"
                wrong = "; ".join(item["distractors"]) or "none"
                flags = ", ".join(item["flags"]) or "none"
                estimate = "not scored" if item["overall"] is None else f"{item['overall']:.0%}"
                out.append(
                    f"{count}. ({run['passage']}) **{item['stem']}** Key: *{item['key']}*; "
                    f"distractors: {wrong}. Overall {estimate}; flags: {flags}; question by "
                    f"the {source}."
                )
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="standard,light")
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--passages", type=int, default=100, help="only the first N passages")
    parser.add_argument("--only", default="", help="only these passages (names, no .txt)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.n, args.threads, Path(args.out), args.passages, args.only)
        return
    results: dict[str, dict[str, Any]] = {}
    for profile in args.profiles.split(","):
        out = RESULTS / f"generation-{profile}.json"
        command = [
            sys.executable,
            __file__,
            "--child",
            profile,
            "--n",
            str(args.n),
            "--threads",
            str(args.threads),
            "--out",
            str(out),
            "--passages",
            str(args.passages),
            "--only",
            args.only,
        ]
        subprocess.run(command, check=True)
        results[profile] = json.loads(out.read_text(encoding="utf-8"))
        out.unlink()
    info = machine()
    words = [r["words"] for r in next(iter(results.values()))["runs"]]
    md = [
        "## Generation on the two profiles (`bench/generation.py`)",
        "",
        f"Command: `.venv/bin/python bench/generation.py --profiles {args.profiles} --n {args.n} "
        f"--threads {args.threads}` at revision {git_revision()}, {info['date']}; {info['cpu']}, "
        f"{info['logical_cpus']} logical CPUs. {len(words)} passages of bench/passages "
        f"({min(words)}-{max(words)} words, median {median(words):.0f}), one "
        f"{args.n}-item multiple-choice quiz each, ranked (3 candidates per target), each "
        "profile in a process of its own, started cold.",
        "",
        "| profile (generator) | first item, cold (s) | first item, warm (median s) | "
        f"{args.n} items, warm (median s) | items made | mean overall | items with a warning "
        "(confirmed by the passage check) | exact / near duplicate pairs | peak memory (GiB) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *(summary(p, d, args.n) for p, d in results.items()),
        "",
    ]
    for profile, data in results.items():
        counts = Counter(c for r in data["runs"] for codes in r["flags"] for c in codes)
        hints = Counter(c for r in data["runs"] for codes in r["hints"] for c in codes)
        made = sum(r["items"] for r in data["runs"])
        listed = ", ".join(f"{c} {k}/{made}" for c, k in counts.most_common()) or "none"
        shown_hints = ", ".join(f"{c} {k}/{made}" for c, k in hints.most_common()) or "none"
        md.append(f"Warnings on the {profile} items: {listed}. Hints: {shown_hints}.")
    md.append("")
    text = "\n".join(md)
    data = {"machine": info, "revision": git_revision(), "n": args.n, "results": results}
    write_results("generation", data, text)
    (RESULTS / "generation-items.md").write_text(items_doc(results), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
