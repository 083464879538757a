"""The evaluation report: JSON (everything), Markdown (the tables a person reads) and plots.

Layout of the JSON:
- dataset: path, format, record counts, limit, seed;
- metrics / labels: what was run and which human dimensions were compared;
- model_config: per metric, the configuration key and the distinct `ScoreResult.model_config`
  values seen (with counts);
- scored / not_scored: per metric, how many results there are and why the others have none;
- correlations: {label: {sub-score: {n, pearson, spearman, kendall}}}, each statistic
  {value, ci, p} or {value: null, reason};
- roles: {sub-score: {role: {n, mean, ci}}} (question types, or QG systems);
- groups (group formats): {sub-score: {valid role: {flawed role: {groups, higher, ties}}}};
- bootstrap: resamples, confidence, seed;
- timing: wall time, cache use and metric_seconds (the summed scoring time per metric, as
  measured when each result was computed): the only part that differs between two runs of
  the same command.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizsmith.domain import ScoreResult
from quizsmith.evaluation import adapters
from quizsmith.evaluation.features import subscores
from quizsmith.evaluation.records import EvalRecord
from quizsmith.evaluation.stats import CONFIDENCE, correlations, role_means, valid_beats_flawed

if TYPE_CHECKING:
    from quizsmith.evaluation.scoring import Scorer

MAX_REASONS = 10


@dataclass
class Report:
    data: dict[str, Any]
    records: list[EvalRecord] = field(default_factory=list)
    results: list[dict[str, ScoreResult]] = field(default_factory=list)

    def write(self, path: str | Path) -> tuple[Path, Path]:
        """Write OUT.json and OUT.md beside it; returns both paths."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(out, json.dumps(self.data, indent=2, ensure_ascii=False) + "\n")
        md = out.with_suffix(".md")
        _atomic_write(md, to_markdown(self.data))
        return out, md

    def plots(self, folder: str | Path) -> list[Path]:
        from quizsmith.evaluation.plots import write_plots

        return write_plots(self.data, self.records, self.results, Path(folder))


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _reason_key(reason: str) -> str:
    reason = " ".join(reason.split())
    return reason if len(reason) <= 160 else reason[:157] + "..."


def build_report(
    records: Sequence[EvalRecord],
    results: Sequence[dict[str, ScoreResult]],
    scorers: Sequence[Scorer],
    *,
    dataset: dict[str, Any],
    seed: int,
    n_boot: int,
) -> dict[str, Any]:
    fmt = str(dataset["format"])
    names = [s.name for s in scorers]
    higher = {s.name: s.higher_is_better for s in scorers}
    labels = sorted({k for r in records for k in r.labels}, key=_label_order)
    model_config: dict[str, Any] = {}
    scored: dict[str, int] = {}
    not_scored: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    for scorer in scorers:
        configs: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        count = 0
        total_s = 0.0
        for res in results:
            result = res.get(scorer.name)
            if result is None:
                continue
            total_s += result.seconds
            if result.scored:
                count += 1
                configs[json.dumps(result.model_config, sort_keys=True, default=str)] += 1
            else:
                reasons[_reason_key(result.not_scored_reason or "no reason")] += 1
        model_config[scorer.name] = {
            "config_key": scorer.config_key,
            "harness_config": scorer.config,
            "seen": [
                {"count": n, "model_config": json.loads(c)} for c, n in configs.most_common(5)
            ],
        }
        scored[scorer.name] = count
        not_scored[scorer.name] = {
            "count": sum(reasons.values()),
            "reasons": dict(reasons.most_common(MAX_REASONS)),
        }
        seconds[scorer.name] = round(total_s, 3)

    # sub-score -> list of (record index, value)
    values: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for i, res in enumerate(results):
        for name in names:
            if name in res:
                for sub, v in subscores(res[name]).items():
                    values[sub].append((i, v))
    subs = sorted(values, key=lambda s: (names.index(s.split(".")[0]), s))

    corr: dict[str, dict[str, Any]] = {}
    for label in labels:
        row: dict[str, Any] = {}
        for sub in subs:
            pairs = [
                (v, records[i].labels[label]) for i, v in values[sub] if label in records[i].labels
            ]
            row[sub] = correlations(
                [p[0] for p in pairs], [p[1] for p in pairs], n_boot=n_boot, seed=seed
            )
        corr[label] = row

    roles = {
        sub: role_means([(records[i].role, v) for i, v in values[sub]], n_boot=n_boot, seed=seed)
        for sub in subs
    }
    data: dict[str, Any] = {
        "dataset": dataset,
        "metrics": names,
        "labels": labels,
        "model_config": model_config,
        "scored": scored,
        "not_scored": not_scored,
        "correlations": corr,
        "roles": roles,
    }
    if adapters.is_group_format(fmt):
        valid_roles, flawed_roles = adapters.roles(fmt)
        groups_table: dict[str, Any] = {}
        for sub in subs:
            per_group: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
            for i, v in values[sub]:
                per_group[records[i].group][records[i].role].append(v)
            means = {
                g: {role: sum(vs) / len(vs) for role, vs in by_role.items()}
                for g, by_role in per_group.items()
            }
            table = valid_beats_flawed(
                means, valid_roles, flawed_roles, higher_is_better=higher[sub.split(".")[0]]
            )
            if table:
                groups_table[sub] = table
        data["groups"] = groups_table
    data["bootstrap"] = {"resamples": n_boot, "confidence": CONFIDENCE, "seed": seed}
    data["timing"] = {"metric_seconds": seconds}
    return data


_LABEL_ORDER = (
    "mean",
    "fluency",
    "clarity",
    "conciseness",
    "relevance",
    "consistency",
    "answerability",
    "answer_consistency",
)


def _label_order(label: str) -> tuple[int, str]:
    return (_LABEL_ORDER.index(label) if label in _LABEL_ORDER else 99, label)


# -- Markdown ---------------------------------------------------------------------------------
def _fmt_stat(stat: dict[str, Any]) -> str:
    if stat.get("value") is None:
        return "undefined"
    ci = stat.get("ci")
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    return f"{stat['value']:.3f}{interval}"


def to_markdown(data: dict[str, Any]) -> str:
    ds = data["dataset"]
    lines = [
        f"# Metric evaluation: {Path(ds['path']).name} ({ds['format']})",
        "",
        f"{ds['records_evaluated']} of {ds['records_in_file']} records"
        + (f" (stratified sample, --limit {ds['limit']}, seed {ds['seed']})" if ds["limit"] else "")
        + f". Intervals: {int(data['bootstrap']['confidence'] * 100)}% percentile bootstrap, "
        f"{data['bootstrap']['resamples']} resamples, seed {data['bootstrap']['seed']}.",
        "",
        "## Scored and not scored",
        "",
        "| metric | scored | not scored | main reasons |",
        "| --- | ---: | ---: | --- |",
    ]
    for name in data["metrics"]:
        ns = data["not_scored"][name]
        reasons = "; ".join(f"{r} ({n})" for r, n in list(ns["reasons"].items())[:3])
        lines.append(f"| {name} | {data['scored'][name]} | {ns['count']} | {reasons} |")
    for label in data["labels"]:
        lines += [
            "",
            f"## Correlation with human `{label}`",
            "",
            "| metric | n | Pearson r | Spearman rho | Kendall tau |",
            "| --- | ---: | --- | --- | --- |",
        ]
        for sub, c in data["correlations"][label].items():
            lines.append(
                f"| {sub} | {c['n']} | {_fmt_stat(c['pearson'])} | "
                f"{_fmt_stat(c['spearman'])} | {_fmt_stat(c['kendall'])} |"
            )
    headline = [s for s in data["roles"] if "." not in s]
    if headline:
        roles = sorted({r for s in headline for r in data["roles"][s]})
        lines += [
            "",
            "## Mean score per role",
            "",
            "| role | " + " | ".join(headline) + " |",
            "| --- |" + " --- |" * len(headline),
        ]
        for role in roles:
            cells = []
            for s in headline:
                m = data["roles"][s].get(role)
                if not m or m["mean"] is None:
                    cells.append("")
                else:
                    ci = m["ci"]
                    cells.append(
                        f"{m['mean']:.3f}"
                        + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
                        + f" (n={m['n']})"
                    )
            lines.append(f"| {role} | " + " | ".join(cells) + " |")
    if data.get("groups"):
        lines += [
            "",
            "## Valid question scores higher than the flawed one (share of groups)",
            "",
            "| metric | valid | flawed | groups | higher | ties |",
            "| --- | --- | --- | ---: | ---: | ---: |",
        ]
        for sub, table in data["groups"].items():
            for good, row in table.items():
                for bad, cell in row.items():
                    lines.append(
                        f"| {sub} | {good} | {bad} | {cell['groups']} | "
                        f"{cell['higher']:.2f} | {cell['ties']:.2f} |"
                    )
    lines += ["", "## Model configuration", ""]
    for name, cfg in data["model_config"].items():
        seen = cfg["seen"][0]["model_config"] if cfg["seen"] else cfg["harness_config"]
        lines.append(f"- **{name}** (key {cfg['config_key']}): `{json.dumps(seen, default=str)}`")
    timing = data.get("timing")
    if timing:
        lines += [
            "",
            f"Time: {timing['wall_seconds']:.1f} s wall ({timing['computed']} results computed, "
            f"{timing['from_cache']} from the cache). Scoring seconds per metric: "
            + ", ".join(f"{k} {v:.1f}" for k, v in timing.get("metric_seconds", {}).items())
            + ".",
        ]
    return "\n".join(lines) + "\n"
