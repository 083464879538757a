"""Benchmark: seconds per item for each metric on the bundled models, and for the "live" set
(overall, NACo k=1 and KDA with the default solvers) that re-scores an item as a teacher edits.

Why this module is long: the per-metric times, the live set's scenarios and the live chips
after a stem edit all time the same items through the same live order and write one kind of
results section; apart, each would repeat the item building, the live order and the report.

Items are real SQuAD questions from ../shared/data/naco (the reference question as the
stem, a second human question as MRE's reference) built into 4-option MCQs with
distractors of the same kind (number / name / other) taken from other items' answers.

The live set is timed as the item editor runs it (in `operations.jobs.live_order`: the overall
estimate first while its model reads only its own signals, then NACo and KDA), with the
time to the first chip and the overall estimate's share apart:
- first score: an item on a passage no metric has read yet;
- after a stem edit: the stem reworded (", according to the passage?" appended), the
  passage already read by the first score;
- after a distractor edit: one distractor replaced by another item's answer of the kind.

    .venv/bin/python bench/metrics.py [--items 5] [--threads 0] [--metrics naco,kda,...]

`--metrics ""` times the live set only.

`--live-chips` (issue 45, point 3: progressive live chips) times only what a teacher waits
for after a stem edit on an MCQ, chip by chip: each item is first scored whole with the
editor's live set (its passage read, as the editor's read-ahead does), then its stem is
edited and the live set runs as the editor runs it (`score_items` with parts, the order of
`live_order`), and the seconds from the start to the first chip (the quick estimate on the
standard profile) and to each metric's result are recorded; medians in
section live-chips[-<profile>] of
bench/results/metrics.json. The target is on the standard profile:

    .venv/bin/python bench/metrics.py --live-chips --profile standard --items 10

Wall-clock medians per item; the first item of each metric is a warm-up (model loading) and
is not counted. Results in bench/results/metrics.json, one section per --name (metrics,
metrics-live, live-chips-standard ...).
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from common import git_revision, machine, median, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from quizsmith.domain import Item
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.operations.jobs import default_live_metrics, live_for_item_type, live_order
from quizsmith.providers.host_client import forget_kept_state
from quizsmith.settings import PROFILE_ENV, PROFILES, Settings
from support.squad import squad_mcqs


def items(n: int) -> list[Item]:
    return squad_mcqs(range(5, 5 + 37 * n, 37))


def stem_edited(item: Item) -> Item:
    return replace(item, stem=item.stem.rstrip(" ?") + ", according to the passage?")


def distractor_edited(item: Item, other: Item) -> Item:
    distractors = [o.text for o in item.options if not o.is_key]
    spare = [o.text for o in other.options if o.text not in distractors and o.text != item.key]
    return replace(item, options=Item.make_options(item.key, [*distractors[:-1], spare[0]]))


#: The live set in the order the item editor runs it (operations/jobs.py: overall first while the
#: active model reads only its own signals); main() sets it again for --profile.
LIVE = live_order(default_live_metrics())
SCENARIOS = ["first score", "after a stem edit", "after a distractor edit"]
#: How far the quick estimate shown first lay from the full estimate that replaced it.
QUICK_GAP = "quick estimate's gap"


def forget_everything() -> None:
    """Drop the models' kept prompt states and remembered answers, and the kept sentence
    vectors: the next draft starts as on a passage nothing has read."""
    from quizsmith.providers import nearest

    forget_kept_state()
    nearest._VECTORS.clear()


def live_scenarios(
    bench_items: list[Item],
    ctx: MetricContext,
    *,
    keep: bool = True,
    names: list[str] | None = None,
    counted: range | None = None,
) -> dict[str, list[float]]:
    """Seconds per scenario, in the order the item editor meets them: the whole live set,
    the first chip (the first metric's result, what the teacher sees first) and the overall
    estimate's own share. `keep` False drops the models' kept prompt states and remembered
    answers before every draft: the same calls with nothing reused, for the ratio. `names`:
    the live set (the default one, or without the overall estimate, for what it adds).
    `counted`: the items whose times count (default: all but the first, which loads the
    models); each item's distractor edit takes a spare answer from the next item."""
    metrics = [registry.get(name)() for name in (LIVE if names is None else names)]
    counted = counted if counted is not None else range(1, len(bench_items))
    out: dict[str, list[float]] = {}
    for name in SCENARIOS:
        out.update({name: [], f"{name}: first chip": [], f"{name}: overall's share": []})
        out[f"{name}: {QUICK_GAP}"] = []
    # The overall estimate's quick estimate (standard profile) is shown as soon as it comes,
    # so it counts as the first chip; heard as the item editor hears it, through ctx.part.
    heard: list[tuple[float, str, str]] = []
    listener = ctx.report_part
    ctx.report_part = lambda metric, text: heard.append((time.perf_counter(), metric, text))
    for i, item in enumerate(bench_items):
        if i and i not in counted:
            continue  # only a spare answer's donor (item 0 always runs: it loads the models)
        other = bench_items[(i + 1) % len(bench_items)]
        drafts = [item, stem_edited(item), distractor_edited(stem_edited(item), other)]
        for name, draft in zip(SCENARIOS, drafts, strict=True):
            if not keep:
                forget_kept_state()
            heard.clear()
            started = time.perf_counter()
            finished = []
            overall = 0.0
            for metric in metrics:
                begun = time.perf_counter()
                draft.scores[metric.name] = metric.score(draft, ctx)
                finished.append(time.perf_counter())
                if metric.name == "overall":
                    overall = finished[-1] - begun
            quick = [(t, text) for t, metric_name, text in heard if metric_name == "overall"]
            if i in counted:
                out[name].append(finished[-1] - started)
                out[f"{name}: first chip"].append(
                    min([finished[0], *[t for t, _ in quick]]) - started
                )
                out[f"{name}: overall's share"].append(overall)
                full = draft.scores.get("overall")
                if quick and full is not None and full.value is not None:
                    shown = re.search(r"(\d+)%", quick[0][1])
                    if shown:
                        out[f"{name}: {QUICK_GAP}"].append(abs(int(shown[1]) / 100 - full.value))
    ctx.report_part = listener
    return out


def overall_adds(
    bench_items: list[Item], ctx: MetricContext
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """What the overall estimate adds to the live set: per item, its drafts scored with the
    whole live set and without the estimate, one right after the other (which first
    alternates from item to item), each from nothing kept, so that the machine's drift
    between two separate passes does not enter the difference. Returns the differences and
    the times without it, per scenario."""
    without_overall = [n for n in LIVE if n != "overall"]
    adds: dict[str, list[float]] = {f"{name}: overall adds": [] for name in SCENARIOS}
    without: dict[str, list[float]] = {name: [] for name in SCENARIOS}
    for i, item in enumerate(bench_items):
        pair = [item, bench_items[(i + 1) % len(bench_items)]]  # the second: a spare answer
        timed: dict[bool, dict[str, list[float]]] = {}
        for with_it in (True, False) if i % 2 else (False, True):
            forget_everything()
            timed[with_it] = live_scenarios(
                pair, ctx, names=LIVE if with_it else without_overall, counted=range(1)
            )
        if i:  # the first item loads the models
            for name in SCENARIOS:
                a, b = timed[True][name][0], timed[False][name][0]
                adds[f"{name}: overall adds"].append(a - b)
                without[name].append(b)
    return adds, without


def live_chip_times(bench_items: list[Item], ctx: MetricContext) -> dict[str, list[float]]:
    """Seconds from the start of the live re-score after a stem edit to each chip: "first
    chip" (the estimate's quick estimate, or the first result) and each live metric's
    result, as the item editor's live job delivers them (`score_draft_job`: `score_items`
    with parts). Also "<metric>: not scored", 1.0 per draft the metric did not score. The
    first item loads the models and is not counted."""
    from quizsmith.metrics.runner import PartStep, ScoredStep, score_items

    names = live_order(live_for_item_type(LIVE, "mcq"))
    out: dict[str, list[float]] = {"first chip": []}
    for name in names:
        out.update({name: [], f"{name}: not scored": []})
    for i, item in enumerate(bench_items):
        # The opened item, scored whole first: the passage read, as the editor's read-ahead
        # leaves it, and the stored scores the draft carries (they describe the old stem).
        opened = copy.deepcopy(item)
        for _event in score_items([opened], names, ctx):
            pass
        draft = stem_edited(copy.deepcopy(opened))
        started = time.perf_counter()
        first: float | None = None
        for event in score_items([draft], names, ctx, parts=True):
            seconds = time.perf_counter() - started
            step = event.payload
            if first is None and isinstance(step, PartStep | ScoredStep):
                first = seconds
            if isinstance(step, ScoredStep) and i:
                out[step.result.metric].append(seconds)
                out[f"{step.result.metric}: not scored"].append(float(not step.result.scored))
        if i and first is not None:
            out["first chip"].append(first)
    return out


def live_chips_markdown(
    times: dict[str, list[float]], settings: Settings, command: str, n_items: int
) -> str:
    info = machine()
    names = [n for n in times if n != "first chip" and not n.endswith(": not scored")]
    md = [
        "## Metrics: live chips after a stem edit (`bench/metrics.py --live-chips`)",
        "",
        f"Command: `.venv/bin/python {command}` at revision {git_revision()}, {info['date']}; "
        f"{info['cpu']}, {info['logical_cpus']} logical CPUs, idle otherwise. The "
        f"{settings.profile} profile's roles ({roles_in_words(settings)}); {n_items} SQuAD "
        "MCQs after one warm-up item, each scored whole first (its passage read, as the "
        'editor\'s read-ahead does), then its stem edited (", according to the passage?" '
        f"appended). The live set in the order the editor runs it: {', '.join(names)}. "
        "Seconds from the start of the re-score until each chip shows its result (the chips "
        "fill in one after another in one job); medians.",
        "",
        "| chip | median s | min | max | not scored |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name in ["first chip", *names]:
        values = times[name]
        if not values:
            md.append(f"| {name} | – | – | – | – |")
            continue
        missed = times.get(f"{name}: not scored", [])
        unscored = f"{int(sum(missed))} of {len(missed)}" if missed else ""
        md.append(
            f"| {name} | {median(values):.2f} | {min(values):.2f} | {max(values):.2f} | "
            f"{unscored} |"
        )
    md += [
        "",
        "Target (issue 45, standard profile, 2 cores): Overall < 1.5 s, the EXAM-style "
        "answerable chip with it (it reads the reader's answer of the estimate, no model "
        "call), KDA < 4 s (medians).",
        "",
    ]
    return "\n".join(md)


def run_live_chips(args: argparse.Namespace, settings: Settings) -> None:
    times = live_chip_times(items(args.items + 1), MetricContext(settings=settings))
    command = f"bench/metrics.py --live-chips --items {args.items}"
    if args.profile != "light":
        command += f" --profile {args.profile}"
    name = args.name
    if name == "metrics":
        name = "live-chips" + ("" if args.profile == "light" else f"-{args.profile}")
    else:
        command += f" --name {name}"
    data = {
        "machine": machine(),
        "revision": git_revision(),
        "items": args.items,
        "threads": args.threads,
        "profile": args.profile,
        "live": LIVE,
        "seconds": times,
    }
    text = live_chips_markdown(times, settings, command, args.items)
    write_results("metrics", data, text, section=name)
    print(text)


METRICS = ["naco", "kda", "exam", "mirror", "mre"]


def roles_in_words(settings: Settings) -> str:
    """The models the profile's roles name, each once ("qwen2.5-coder-1.5b-instruct, ...")."""
    names: list[str] = []
    for value in settings.effective_roles().values():
        for ref in value if isinstance(value, list) else [value]:
            if str(ref) not in names:
                names.append(str(ref))
    return ", ".join(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5)
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="light",
        help="model profile whose roles and live set are timed (default light)",
    )
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: cores)")
    parser.add_argument(
        "--metrics", default=",".join(METRICS), help="metrics timed one by one (comma list)"
    )
    parser.add_argument(
        "--name", default="metrics", help="section of bench/results/metrics.json (default metrics)"
    )
    parser.add_argument(
        "--live-chips",
        action="store_true",
        help="time only each live chip after a stem edit on an MCQ (issue 45; its target is "
        "on --profile standard); results in live-chips[-<profile>] unless --name says",
    )
    args = parser.parse_args()
    global LIVE
    # The live set and the model that orders it follow the profile as they would in the app.
    os.environ[PROFILE_ENV] = args.profile
    LIVE = live_order(default_live_metrics(args.profile))
    settings = Settings(profile=args.profile, n_threads=args.threads)
    if args.live_chips:
        run_live_chips(args, settings)
        return
    bench_items = items(args.items + 1)
    ctx = MetricContext(settings=settings)
    per_metric: dict[str, list[float]] = {}
    not_scored: dict[str, int] = {}
    for name in filter(None, args.metrics.split(",")):
        metric = registry.get(name)()
        times = []
        for i, item in enumerate(bench_items):
            started = time.perf_counter()
            result = metric.score(item, ctx)
            if i:  # the first item loads the models
                times.append(time.perf_counter() - started)
            not_scored[name] = not_scored.get(name, 0) + int(not result.scored)
        per_metric[name] = times
    # The live set runs in a fresh process state for the passages (the per-metric loop above
    # read them already): fresh MetricContext, and the bench items shifted to unread passages.
    live_items = items(2 * (args.items + 1))[args.items + 1 :]
    live_ctx = MetricContext(settings=settings)
    live = live_scenarios(live_items, live_ctx)
    forget_everything()
    unkept = live_scenarios(live_items, live_ctx, keep=False)
    # When the estimate is the whole live set (the shipped models read no other metric), what
    # it adds is the live set's own time.
    adds, without = overall_adds(live_items, live_ctx) if len(LIVE) > 1 else ({}, {})
    info = machine()
    data: dict[str, Any] = {
        "machine": info,
        "revision": git_revision(),
        "items": args.items,
        "threads": args.threads,
        "profile": args.profile,
        "seconds": per_metric,
        "live": live,
        "live_nothing_kept": unkept,
        "live_without_overall": without,
        "overall_adds": adds,
        "not_scored": not_scored,
    }
    command = f"bench/metrics.py --items {args.items}"
    if args.profile != "light":
        command += f" --profile {args.profile}"
    if args.metrics != ",".join(METRICS):
        command += f' --metrics "{args.metrics}"'
    if args.name != "metrics":
        command += f" --name {args.name}"
    live_gaps = {name: live[f"{name}: {QUICK_GAP}"] for name in SCENARIOS}
    live_gaps = {name: gaps for name, gaps in live_gaps.items() if gaps}
    heading = "Metrics" if per_metric else "Metrics: the live set"
    md = [
        f"## {heading} (`bench/metrics.py`)",
        "",
        f"Command: `.venv/bin/python {command}` at revision "
        f"{data['revision']}, {info['date']}; {info['cpu']}, {info['logical_cpus']} logical "
        f"CPUs, idle otherwise. The {args.profile} profile's roles ({roles_in_words(settings)}); "
        f"{args.items} SQuAD MCQs after one warm-up item; medians.",
        "",
    ]
    if per_metric:
        md += [
            "| metric | median s/item | min | max | not scored |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
    for name, times in per_metric.items():
        md.append(
            f"| {name} | {median(times):.2f} | {min(times):.2f} | {max(times):.2f} | "
            f"{not_scored[name]} of {len(bench_items)} |"
        )
    md += [
        "",
        f"Live set ({', '.join(LIVE)} in this order"
        + ("; NACo k=1, KDA's default solvers" if {"naco", "kda"} & set(LIVE) else "")
        + "), as the "
        f"item editor re-scores a draft, on {args.items} other SQuAD items after a warm-up "
        'item. "First chip": until the first result (or the overall\'s quick estimate) is '
        "shown; the chips fill in as each metric finishes.",
        "",
        "| live set | median s/item | min | max | nothing kept: median | speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, times in live.items():
        if name.endswith(": overall's share") and LIVE[0] == "overall":
            continue  # the first full result: the first chip, or the whole live set
        if name.endswith(QUICK_GAP):
            continue  # not seconds: below the table
        cold = unkept[name]
        md.append(
            f"| {name} | {median(times):.2f} | {min(times):.2f} | {max(times):.2f} | "
            f"{median(cold):.2f} | {median(cold) / median(times):.1f}x |"
        )
    if live_gaps:
        md += [
            "",
            "The first chip of the overall estimate is its quick estimate (the light profile's "
            "model on the small models' signals, quality/quick_estimate.py) while the 1.5B model "
            "reads; how far it lay from the estimate that replaced it, median (max): "
            + "; ".join(
                f"{name} {median(live_gaps[name]):.2f} ({max(live_gaps[name]):.2f}, "
                f"n {len(live_gaps[name])})"
                for name in SCENARIOS
                if live_gaps.get(name)
            )
            + ".",
        ]
    md += (
        []
        if not adds
        else [
            "",
            "What the overall estimate adds: per item, the whole live set with it minus the same "
            "drafts without it, the two runs one right after the other (which first alternates), "
            "each from nothing kept:",
            "",
            "| scenario | overall adds: median s | min | max | live set without it: median s |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
    )
    for name in SCENARIOS if adds else []:
        d = adds[f"{name}: overall adds"]
        md.append(
            f"| {name} | {median(d):.2f} | {min(d):.2f} | {max(d):.2f} | "
            f"{median(without[name]):.2f} |"
        )
    md += [
        "",
        '"Nothing kept": the same drafts with the models\' kept prompt states and remembered '
        "answers dropped before each one (every call reads its whole prompt).",
    ]
    md += [
        "",
        (
            "Targets (issue 16): re-score after an edit < 1.5 s, first chip < 1 s, full first "
            "score < 2.5 s (medians, 2 cores); issue 14: the overall estimate adds < 0.3 s."
            if args.profile == "light"
            else "Targets (issue 26, standard profile): re-score after a stem edit < 1.5 s, "
            "first chip < 1 s, first full score < 4 s (medians, 2 cores)."
        ),
        "",
    ]
    text = "\n".join(md)
    write_results("metrics", data, text, section=args.name)
    print(text)


if __name__ == "__main__":
    main()
