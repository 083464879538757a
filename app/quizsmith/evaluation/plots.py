"""PNG plots of a report with matplotlib's Agg canvas (no pyplot, no GUI backend, no global
state): for each metric's headline value, box plots of the score per human label value, a
scatter of score against each human label, and for datasets with roles a box plot per role.
Labels with more than eight distinct values are binned into quintiles."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from quizsmith.domain import ScoreResult
from quizsmith.evaluation.records import EvalRecord

MAX_LEVELS = 8


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _figure(n_panels: int) -> tuple[Any, list[Any]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cols = min(4, max(1, n_panels))
    rows = (n_panels + cols - 1) // cols
    fig = Figure(figsize=(4 * cols, 3.2 * rows), dpi=90)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(n_panels)]
    return fig, axes


def _levels(labels: list[float]) -> tuple[list[str], list[int]]:
    """Category names and each point's category (distinct values, or quintile bins)."""
    distinct = sorted(set(labels))
    if len(distinct) <= MAX_LEVELS:
        names = [f"{v:g}" if float(v).is_integer() else f"{v:.2f}" for v in distinct]
        return names, [distinct.index(v) for v in labels]
    edges = np.unique(np.quantile(labels, [0.2, 0.4, 0.6, 0.8]))
    cats = [int(np.searchsorted(edges, v, side="right")) for v in labels]
    bounds = [min(labels), *edges.tolist(), max(labels)]
    names = [f"{bounds[i]:.2f}-{bounds[i + 1]:.2f}" for i in range(len(bounds) - 1)]
    return names, cats


def write_plots(
    data: dict[str, Any],
    records: list[EvalRecord],
    results: list[dict[str, ScoreResult]],
    folder: Path,
) -> list[Path]:
    """The plots of a report (`Report.plots`: its data, records and results) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    labels: list[str] = data["labels"]
    for metric in data["metrics"]:
        points = [
            (rec, res[metric].value)
            for rec, res in zip(records, results, strict=True)
            if metric in res and res[metric].scored
        ]
        if not points:
            continue
        usable = [lab for lab in labels if len({r.labels.get(lab) for r, _ in points}) > 1]
        if usable:
            written.append(_box_by_label(metric, points, usable, folder))
            written.append(_scatter(metric, points, usable, folder))
        if len({r.role for r, _ in points}) > 1:
            written.append(_box_by_role(metric, points, folder))
    return written


def _box_by_label(metric: str, points: list[Any], labels: list[str], folder: Path) -> Path:
    fig, axes = _figure(len(labels))
    for ax, label in zip(axes, labels, strict=True):
        pts = [(r.labels[label], v) for r, v in points if label in r.labels]
        names, cats = _levels([p[0] for p in pts])
        groups: dict[int, list[float]] = defaultdict(list)
        for cat, (_, v) in zip(cats, pts, strict=True):
            groups[cat].append(v)
        keys = sorted(groups)
        ax.boxplot([groups[k] for k in keys], showfliers=False)
        ticks = [f"{names[k]}\nn={len(groups[k])}" for k in keys]
        ax.set_xticks(range(1, len(keys) + 1), ticks, fontsize=7)
        ax.set_xlabel(f"human {label}")
        ax.set_ylabel(metric)
    fig.suptitle(f"{metric} per human label")
    fig.tight_layout()
    path = folder / f"{_safe(metric)}_by_label.png"
    fig.savefig(path)
    return path


def _scatter(metric: str, points: list[Any], labels: list[str], folder: Path) -> Path:
    rng = np.random.default_rng(0)
    fig, axes = _figure(len(labels))
    for ax, label in zip(axes, labels, strict=True):
        xs = np.array([r.labels[label] for r, _ in points if label in r.labels], dtype=float)
        ys = np.array([v for r, v in points if label in r.labels], dtype=float)
        spread = (np.ptp(xs) or 1.0) * 0.02
        ax.scatter(xs + rng.normal(0, spread, xs.size), ys, s=4, alpha=0.35)
        ax.set_xlabel(f"human {label} (jittered)")
        ax.set_ylabel(metric)
    fig.suptitle(f"{metric} against human labels")
    fig.tight_layout()
    path = folder / f"{_safe(metric)}_scatter.png"
    fig.savefig(path)
    return path


def _box_by_role(metric: str, points: list[Any], folder: Path) -> Path:
    groups: dict[str, list[float]] = defaultdict(list)
    for rec, v in points:
        groups[rec.role].append(v)
    roles = sorted(groups)
    fig, axes = _figure(1)
    ax = axes[0]
    fig.set_size_inches(max(4.0, 0.5 * len(roles) + 2), 4.0)
    ax.boxplot([groups[r] for r in roles], showfliers=False)
    ax.set_xticks(range(1, len(roles) + 1), roles, rotation=60, ha="right", fontsize=6)
    ax.set_ylabel(metric)
    fig.suptitle(f"{metric} per role")
    fig.tight_layout()
    path = folder / f"{_safe(metric)}_by_role.png"
    fig.savefig(path)
    return path
