"""Benchmark: generation on the standard and the light profile, side by side (issues 26, 44).

The passages are those of bench/passages.toml (24 original passages in six subjects, a third
of them pasted from web pages with their citation marks; the file says more), in name order,
the same for both profiles. On each, a 5-item multiple-choice quiz as the app makes it
(the app's default candidates per target: 1 with the standard profile's chat model, 3 with the
light profile's few-shot models, ranked by the overall estimate, which is the live set). Each
profile runs in a child process of its own, so that its peak memory (the child's maximum
resident set) is its own, and starts cold: the seconds to the first item of
the first quiz include loading the models and evaluating the prompts' fixed heads (their
states on disk are removed first); the other quizzes are warm (models loaded, fixed heads
restored from disk, nothing of an earlier passage kept).

Reported per profile: seconds to the first item and to all five (medians over the warm
quizzes, and the cold first item), items made, the mean overall estimate, the items with a
warning and how many of those a passage check confirms, exact duplicate questions (same
words, case and punctuation aside) and near duplicates (MiniLM cosine >= 0.9 between two
questions of one quiz), peak memory, and the question-writing model's speed on a fixed
workload after each quiz (prompt and new tokens per second: the machine's speed that day,
without which a slow day reads as a slow app). Warnings are checked against the
passage: an item whose key occurs in the passage sentence nearest its question (MiniLM),
whose stem reads as a question and does not contain the key, "passes the passage check", so
a warning on it is counted as unconfirmed (a likely false alarm). Hints do not queue an
item and are listed apart.

    .venv/bin/python bench/generation.py [--profiles standard,light] [--n 5] [--threads 2]
        [--passages N] [--only NAME,NAME]

Results in bench/results/generation.json, every item of each profile as generated (with where
its question came from: the model or the rule) among them.

The share of items usable as written, with its interval over passages: the readings in
docs/generation.md (one numbered line per item, under a "#### Readings: <profile> profile"
heading: "N. (passage, ...) ... Reading: **usable**." / "Reading: needs a fix: why." /
"Reading: bad: why.") counted per profile, each verdict's share with a 95% interval from
resampling whole passages (10,000 resamples, seed 0): the items of one passage are not
independent, so the passage is the unit.

    .venv/bin/python bench/generation.py --readings [docs/generation.md]

To write the readings of a new run: `--item-lines PROFILE [VERDICTS]` prints one line per item
of that profile in bench/results/generation.json, in the form above, with the verdicts of the
file VERDICTS (one line per item: "N|usable|", "N|fix|why" or "N|bad|why"; N counts the
profile's items in order; a line with a profile's name starts that profile's verdicts;
bench/results/generation-readings.txt holds the latest run's, both profiles), to paste under
the profile's heading.

Why this module is long: the run, the readings' count and the lines the readings are written
on all read the same results file and item fields; apart, each would repeat them.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from common import RESULTS, git_revision, machine, median, write_results

ROOT = Path(__file__).resolve().parent
PASSAGES = ROOT / "passages.toml"
NEAR_DUPLICATE = 0.9
READINGS_DOC = ROOT.parent / "docs" / "generation.md"
VERDICTS = ("usable", "needs a fix", "bad")
_HEADING = re.compile(r"^#### Readings: (\w+) profile")
_ITEM = re.compile(r"^\d+\. \(([\w-]+)[,)].*Reading: \**(usable|needs a fix|bad)\b")
RESAMPLES = 10_000
#: The fixed workload that measures the machine's speed beside each quiz (`generator_speed`):
#: one day's run read 2.2 times slower than another's on the same code and items, which the
#: seconds alone would show as a slower app.
SPEED_TEXT = (
    "Rivers carry water from high ground to the sea. Along the way they wear away rock, carry "
    "sand and mud downstream, and drop it where the water slows. "
)
SPEED_PROMPT_TOKENS = 300
SPEED_NEW_TOKENS = 32


def passages(only: str = "") -> list[tuple[str, str]]:
    """(name, text) of every bench passage (or of those named in `only`), by name."""
    wanted = {n.strip() for n in only.split(",") if n.strip()}
    listed = tomllib.loads(PASSAGES.read_text(encoding="utf-8"))["passage"]
    found = [
        (p["name"], p["text"])
        for p in sorted(listed, key=lambda p: p["name"])
        if not wanted or p["name"] in wanted
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

    request = GenerationRequest(n=n, types=("mcq",), rank=True)
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


def generator_speed(settings: Any, run: int) -> dict[str, float]:
    """The question-writing model's prompt and generation speed (tokens/s) on a fixed
    workload, through the app's provider as a quiz uses it: a ~300-token prompt answered
    with one token (almost all prompt evaluation), and 32 new tokens after a short prompt,
    less that prompt's own time. `run` makes each call's prompt new: the model host
    remembers answers to a prompt it has seen."""
    from quizsmith.providers.manager import provider_for_role

    generator = provider_for_role("generator", settings)
    prompt = f"Reading {run}. " + SPEED_TEXT * (SPEED_PROMPT_TOKENS // 30)  # ~30 tokens a copy
    started = time.perf_counter()
    read = generator.complete(prompt, max_tokens=1)
    prompt_s = time.perf_counter() - started
    short = f"Story {run}, about a river: Once upon a time"
    started = time.perf_counter()
    generator.complete(short, max_tokens=1)
    short_s = time.perf_counter() - started
    started = time.perf_counter()
    written = generator.complete(short, max_tokens=SPEED_NEW_TOKENS)
    new_s = time.perf_counter() - started - short_s
    return {
        "prompt_tps": read.prompt_tokens / prompt_s,
        "generation_tps": max(1, written.completion_tokens - 1) / max(new_s, 1e-6),
    }


def child(profile: str, n: int, threads: int, out: Path, count: int, only: str) -> None:
    """One profile's quizzes, cold, in this process; the results and peak memory to `out`."""
    from quizsmith.providers import catalog
    from quizsmith.providers.llamacpp_disk_states import states_folder
    from quizsmith.settings import Settings

    settings = Settings(n_threads=threads, profile=profile)
    # The prompts' fixed heads are kept on disk across runs of the app: removed here, so
    # that the first quiz evaluates them as on a machine that never ran one; the later
    # quizzes restore them, as a teacher's second quiz (and any quiz after that) does.
    shutil.rmtree(states_folder(), ignore_errors=True)
    runs = []
    # Each passage's run as it ends, for reading while the rest run (the parent removes it).
    progress = out.with_name(f"{out.stem}-progress.jsonl")
    progress.unlink(missing_ok=True)
    for name, text in passages(only)[:count]:
        runs.append(run_quiz(name, text, n, settings))
        # After the quiz, so the first quiz's cold start stays what a teacher waits for.
        runs[-1]["speed"] = generator_speed(settings, len(runs))
        print(profile, json.dumps(runs[-1])[:200], file=sys.stderr, flush=True)
        with progress.open("a", encoding="utf-8") as lines:
            lines.write(json.dumps(runs[-1]) + "\n")
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
    speeds = [r["speed"] for r in runs if "speed" in r]  # runs before the column have none
    speed = (
        f"{median([s['prompt_tps'] for s in speeds]):.0f} / "
        f"{median([s['generation_tps'] for s in speeds]):.1f}"
        if speeds
        else "not measured"
    )
    return (
        f"| {profile} ({data['generator']}) | {cold:.0f} | "
        f"{median(firsts) if firsts else float('nan'):.0f} | "
        f"{median([r['seconds'] for r in warm]):.0f} | {made} of {n * len(runs)} | "
        f"{sum(estimates) / len(estimates) if estimates else float('nan'):.2f} | "
        f"{warned} ({sum(r['warned_confirmed'] for r in runs)}) | "
        f"{sum(r['exact_duplicates'] for r in runs)} / {sum(r['near_duplicates'] for r in runs)} | "
        f"{data['peak_rss_mib'] / 1024:.1f} | {speed} |"
    )


def readings(text: str) -> dict[str, dict[str, list[str]]]:
    """profile -> passage -> the verdict of each of its items."""
    found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    profile = None
    for line in text.splitlines():
        if heading := _HEADING.match(line):
            profile = heading.group(1)
        elif line.startswith("#"):
            profile = None
        elif profile and (item := _ITEM.match(line)):
            found[profile][item.group(1)].append(item.group(2))
    return found


def share_interval(by_passage: dict[str, list[str]], verdict: str) -> tuple[float, float, float]:
    """The share of items with `verdict` and its 95% interval over passages."""
    groups = list(by_passage.values())

    def share(sample: list[list[str]]) -> float:
        items = [v for group in sample for v in group]
        return sum(v == verdict for v in items) / max(len(items), 1)

    rng = random.Random(0)
    shares = sorted(share(rng.choices(groups, k=len(groups))) for _ in range(RESAMPLES))
    return share(groups), shares[int(0.025 * RESAMPLES)], shares[int(0.975 * RESAMPLES) - 1]


def item_lines(
    results: dict[str, Any], profile: str, verdicts: dict[int, tuple[str, str]]
) -> list[str]:
    """One docs line per item of `profile` in a run's results (`results` of its data)."""
    lines = []
    items = [(run, item) for run in results[profile]["runs"] for item in run["shown"]]
    for n, (run, item) in enumerate(items, 1):
        method = str(item.get("stem_method", ""))
        source = (
            "rule"
            if method.startswith("rule")
            else "model, with its answer"
            if "together" in method
            else "model"
        )
        wrong = "; ".join(item["distractors"]) or "none"
        estimate = "not scored" if item["overall"] is None else f"{item['overall']:.0%}"
        line = (
            f"{n}. ({run['passage']}, {source}) {item['stem']} Key: *{item['key']}*; wrong: "
            f"{wrong}. Overall {estimate}, flags {', '.join(item['flags']) or 'none'}."
        )
        if n in verdicts:
            verdict, why = verdicts[n]
            line += " Reading: " + ("**usable**." if verdict == "usable" else f"{verdict}: {why}")
        lines.append(line)
    return lines


def print_readings(doc: Path) -> None:
    print("| profile | passages | items | usable as written | needs a fix | bad |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for profile, by_passage in readings(doc.read_text(encoding="utf-8")).items():
        items = sum(len(v) for v in by_passage.values())
        cells = []
        for verdict in VERDICTS:
            count = sum(v == verdict for group in by_passage.values() for v in group)
            share, low, high = share_interval(by_passage, verdict)
            cells.append(f"{count} ({share:.0%}, {low:.0%}-{high:.0%})")
        print(f"| {profile} | {len(by_passage)} | {items} | " + " | ".join(cells) + " |")


def print_item_lines(profile: str, verdicts_file: str | None) -> None:
    results = json.loads((RESULTS / "generation.json").read_text(encoding="utf-8"))
    verdicts = {}
    rows = Path(verdicts_file).read_text(encoding="utf-8").splitlines() if verdicts_file else []
    of = profile  # a file without a profile line holds this profile's verdicts
    for row in rows:
        if row.strip() and "|" not in row:  # a line without one names the profile that follows
            of = row.strip()
        elif "|" in row and of == profile:
            n, verdict, why = [*row.split("|", 2), ""][:3]
            verdict = "needs a fix" if verdict.strip() == "fix" else verdict.strip()
            verdicts[int(n)] = (verdict, why.strip())
    print("\n".join(item_lines(results["generation"]["results"], profile, verdicts)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="standard,light")
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--passages", type=int, default=100, help="only the first N passages")
    parser.add_argument("--only", default="", help="only these passages (their names)")
    parser.add_argument(
        "--readings",
        nargs="?",
        const=str(READINGS_DOC),
        metavar="DOC",
        help="count the readings in DOC (docs/generation.md) instead of running",
    )
    parser.add_argument(
        "--item-lines",
        nargs="+",
        metavar=("PROFILE", "VERDICTS"),
        help="print the last run's items of PROFILE as reading lines, with VERDICTS' verdicts",
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.readings:
        print_readings(Path(args.readings))
        return
    if args.item_lines:
        print_item_lines(args.item_lines[0], (args.item_lines[1:] or [None])[0])
        return
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
        out.with_name(f"{out.stem}-progress.jsonl").unlink(missing_ok=True)
    info = machine()
    words = [r["words"] for r in next(iter(results.values()))["runs"]]
    md = [
        "## Generation on the two profiles (`bench/generation.py`)",
        "",
        f"Command: `.venv/bin/python bench/generation.py --profiles {args.profiles} --n {args.n} "
        f"--threads {args.threads}{f' --only {args.only}' if args.only else ''}` at revision "
        f"{git_revision()}, {info['date']}; {info['cpu']}, "
        f"{info['logical_cpus']} logical CPUs. {len(words)} passages of bench/passages.toml "
        f"({min(words)}-{max(words)} words, median {median(words):.0f}), one "
        f"{args.n}-item multiple-choice quiz each, ranked (the default candidates per target: "
        "1 standard, 3 light), each "
        "profile in a process of its own, started cold.",
        "",
        "| profile (generator) | first item, cold (s) | first item, warm (median s) | "
        f"{args.n} items, warm (median s) | items made | mean overall | items with a warning "
        "(confirmed by the passage check) | exact / near duplicate pairs | peak memory (GiB) | "
        "generator speed, prompt / new tokens per s (median over quizzes) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
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
    print(text)


if __name__ == "__main__":
    main()
