"""Wrong answers judged by reading, measured on CELA's labelled cloze tests (issue 45, point 2).

Every labelled blank of CELA (/work/shared/data/cela, README.md there; 100 tests, four
options per blank) is read as a fill-in-the-blank item with options (`item_types.cela_blanks`)
and its three wrong answers get the diagnostics of `quality/option_checks.py` (spaCy only,
no language model). A blank raises a flag when any of its wrong answers does:

- "a wrong answer no one would choose" (`option-other-kind`) against `val` = N (the blank's
  distractors mislead nobody), R and G the other side;
- "another option may also be correct" (`option-may-be-correct`) against `rel` = F (not
  exactly one correct option).

Each part of a wrong answer's form (part of speech, fine tag, entity type, number) and each
reading of the passage's support is measured alone; the parts a flag is made of are then
chosen as those whose precision reaches the warning bar (0.6) on the other folds (5 folds
grouped by test), and the chosen flag's precision and recall are reported out of fold, with
95% intervals resampling whole tests, overall and per source. Also read: each option on its
own (no sentence), as a question's options are read when the passage does not hold the key.

    python bench/option_checks.py      # about a minute on 2 cores

Writes bench/results/option_checks.{json,md}: ids and numbers only, never CELA's text.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import git_revision, machine, write_results
from item_types import cela_blanks
from quizsmith.evaluation.item_type_calibration import grouped_interval

WARNING_BAR = 0.6
#: The fewest flagged blanks a part needs to be raised at all (as a hint).
MIN_FLAGGED = 20
FOLDS = 5
SOURCES = ("cloth", "cbt", "jiang", "random", "roundmt")
FORM_PARTS = ("pos", "tag", "entity", "number")
#: Heads whose word the passage holding says something: content words (a function word such as
#: "when" or "the" is in nearly every passage).
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})


def read_blank(blank: dict[str, Any]) -> dict[str, Any]:
    """One blank's readings as the set of what its wrong answers showed (ids and labels)."""
    from quizsmith.quality.option_checks import diagnose

    wrong = [o for o in blank["options"] if o != blank["key"]]
    placed = diagnose(blank["stem"], blank["key"], wrong, blank["passage"])
    alone = diagnose("", blank["key"], wrong)
    shown: set[str] = set()
    for d in placed:
        shown |= {f"sentence.{x.part}" for x in d.differences}
        if d.duplicate_of is not None:
            shown.add("duplicate.key" if d.duplicates_key else "duplicate.other")
        if d.in_passage:
            shown.add("passage.any")
            if d.head_pos in CONTENT_POS:
                shown.add("passage.content")
    for d in alone:
        shown |= {f"alone.{x.part}" for x in d.differences}
    return {
        "test": blank["test"],
        "source": blank["source"],
        "blank": blank["blank"],
        "rel": blank["rel"],
        "val": blank["val"],
        "shown": sorted(shown),
    }


def precision_recall(flagged: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    if not flagged.any() or not positive.any():
        raise ValueError("nothing flagged or no positive label")
    hit = float((flagged & positive).sum())
    return hit / float(flagged.sum()), hit / float(positive.sum())


def summary(flagged: np.ndarray, positive: np.ndarray, groups: np.ndarray) -> dict[str, Any]:
    """Precision and recall with 95% intervals resampling whole tests."""
    out: dict[str, Any] = {
        "n": len(flagged),
        "positives": int(positive.sum()),
        "flagged": int(flagged.sum()),
        "base_rate": round(float(positive.mean()), 3) if len(positive) else None,
    }
    try:
        p, r = precision_recall(flagged, positive)
    except ValueError:
        return {**out, "precision": None, "recall": None}
    out["precision"], out["recall"] = round(p, 3), round(r, 3)
    if len(np.unique(groups)) >= 3:
        out["precision_ci"] = grouped_interval(
            lambda f, y: precision_recall(f, y)[0], groups, flagged, positive
        )
        out["recall_ci"] = grouped_interval(
            lambda f, y: precision_recall(f, y)[1], groups, flagged, positive
        )
    return out


def folds_of(tests: list[str]) -> dict[str, int]:
    """Each test's fold: tests in a seeded order dealt round the folds."""
    order = sorted(set(tests))
    np.random.default_rng(45).shuffle(order)
    return {t: i % FOLDS for i, t in enumerate(order)}


def chosen_parts(
    rows: list[dict[str, Any]], label: Callable[[dict[str, Any]], bool], parts: tuple[str, ...]
) -> list[str]:
    """The parts whose flag alone reaches the warning bar's precision on `rows`."""
    y = np.array([label(r) for r in rows])
    keep = []
    for part in parts:
        flagged = np.array([part in r["shown"] for r in rows])
        try:
            if precision_recall(flagged, y)[0] >= WARNING_BAR:
                keep.append(part)
        except ValueError:
            continue
    return keep


def measure_flag(
    rows: list[dict[str, Any]],
    label: Callable[[dict[str, Any]], bool],
    parts: tuple[str, ...],
) -> dict[str, Any]:
    """Each part alone (all blanks), the parts chosen on all blanks, and the out-of-fold
    flag: parts chosen on four folds, judged on the fifth."""
    groups = np.array([r["test"] for r in rows])
    y = np.array([label(r) for r in rows])
    alone = {
        part: summary(np.array([part in r["shown"] for r in rows]), y, groups) for part in parts
    }
    fold = folds_of([r["test"] for r in rows])
    oof = np.zeros(len(rows), dtype=bool)
    per_fold = []
    for k in range(FOLDS):
        train = [r for r in rows if fold[r["test"]] != k]
        keep = chosen_parts(train, label, parts)
        per_fold.append(keep)
        for i, r in enumerate(rows):
            if fold[r["test"]] == k:
                oof[i] = any(p in r["shown"] for p in keep)
    chosen = chosen_parts(rows, label, parts)
    out_of_fold = summary(oof, y, groups)
    # A warning only where the flag so made held the bar on tests it was not chosen on.
    held = (out_of_fold["precision"] or 0.0) >= WARNING_BAR
    shipped = chosen if held else []
    by_source = {}
    for source in SOURCES:
        mask = np.array([r["source"] == source for r in rows])
        by_source[source] = summary(oof[mask], y[mask], groups[mask])
    rest = [p for p in parts if p not in shipped]
    # A hint: what went with the label more often than its base rate (the interval's low end
    # above it), on enough blanks.
    hints = [
        p
        for p in rest
        if alone[p]["flagged"] >= MIN_FLAGGED
        and alone[p].get("precision_ci", [0.0])[0] > (alone[p]["base_rate"] or 0.0)
    ]
    return {
        "parts": alone,
        "chosen_per_fold": per_fold,
        "chosen_on_all": chosen,
        "shipped_parts": shipped,
        "hint_parts": hints,
        # What the hint parts raise together, on all blanks.
        "not_chosen": summary(
            np.array([any(p in r["shown"] for p in hints) for r in rows]), y, groups
        ),
        "out_of_fold": out_of_fold,
        "out_of_fold_by_source": by_source,
    }


def agrees(flags: dict[str, Any]) -> bool:
    """Whether quality/option_checks.py ships what this measurement chose."""
    from quizsmith.quality.option_checks import OTHER_FORM_PARTS, OTHER_KIND_PARTS

    for reading, name in (
        ("sentence", "option-other-kind, read in the sentence"),
        ("alone", "option-other-kind, each option read on its own"),
    ):
        chosen = {p.split(".", 1)[1] for p in flags[name]["shipped_parts"]}
        hints = {p.split(".", 1)[1] for p in flags[name]["hint_parts"]}
        if chosen != OTHER_KIND_PARTS[reading] or hints != OTHER_FORM_PARTS[reading]:
            return False
    # option-may-be-correct is raised for a duplicate of the key only.
    may = flags["option-may-be-correct"]
    return set(may["shipped_parts"]) <= {"duplicate.key"} and not may["hint_parts"]


def fmt(s: dict[str, Any], what: str = "precision") -> str:
    value = s.get(what)
    if value is None:
        return "–"
    ci = s.get(f"{what}_ci")
    return f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{value:.2f}"


def markdown(data: dict[str, Any]) -> str:
    lines = [
        "## Wrong answers judged by reading (CELA, issue 45)",
        "",
        f"`{data['command']}` at {data['revision']}, {data['machine']['cpu']}, "
        f"{data['seconds']} s. {data['blanks']} labelled blanks of {data['tests']} tests; "
        "spaCy only"
        + ("" if data.get("module_agrees") else " (**quality/option_checks.py ships other parts**)")
        + ". Precision and recall per blank (a blank is flagged when any of its three "
        "wrong answers is); 95% intervals resample whole tests. Out of fold: the parts a flag "
        f"is made of chosen on four of {FOLDS} folds (grouped by test) as those reaching "
        f"precision {WARNING_BAR}, judged on the fifth.",
        "",
    ]
    for name, flag in data["flags"].items():
        lines += [
            f"### {name} (label: {flag['label']})",
            "",
            "| reading | n | flagged | base rate | precision | recall |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for part, s in flag["parts"].items():
            lines.append(
                f"| {part} | {s['n']} | {s['flagged']} | {s['base_rate']} | {fmt(s)} | "
                f"{fmt(s, 'recall')} |"
            )
        s = flag["out_of_fold"]
        chosen = ", ".join(flag["chosen_on_all"]) or "none"
        lines += [
            f"| **the flag, out of fold** | {s['n']} | {s['flagged']} | {s['base_rate']} | "
            f"**{fmt(s)}** | {fmt(s, 'recall')} |",
            f"| the hint ({', '.join(flag['hint_parts']) or 'none'}) | "
            f"{flag['not_chosen']['n']} | "
            f"{flag['not_chosen']['flagged']} | {flag['not_chosen']['base_rate']} | "
            f"{fmt(flag['not_chosen'])} | {fmt(flag['not_chosen'], 'recall')} |",
            "",
            f"Chosen on all blanks: {chosen}; per fold: "
            + "; ".join(", ".join(k) or "none" for k in flag["chosen_per_fold"])
            + (
                f". Shipped (out of fold >= {WARNING_BAR}): "
                + (", ".join(flag["shipped_parts"]) or "none")
                + "."
                if flag.get("is_flag", True)
                else ". No flag: a description of what passage support goes with."
            ),
            "",
            "| source | n | flagged | base rate | precision | recall |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for source, s in flag["out_of_fold_by_source"].items():
            lines.append(
                f"| {source} | {s['n']} | {s['flagged']} | {s['base_rate']} | {fmt(s)} | "
                f"{fmt(s, 'recall')} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tests", type=int, default=100, help="tests to read (seeded choice)")
    args = parser.parse_args()
    started = time.perf_counter()
    blanks = cela_blanks(99, seed=27, tests=args.tests, every_label=True)
    rows = []
    for n, blank in enumerate(blanks, 1):
        rows.append(read_blank(blank))
        if n % 200 == 0:
            print(f"{n}/{len(blanks)} blanks read", flush=True)
    support = ("duplicate.key", "duplicate.other", "passage.any", "passage.content")
    with_val = [r for r in rows if r["val"] is not None]
    with_rel = [r for r in rows if r["rel"] is not None]

    def nobody(r: dict[str, Any]) -> bool:
        return bool(r["val"] == "N")

    data: dict[str, Any] = {
        "command": "python bench/option_checks.py"
        + (f" --tests {args.tests}" if args.tests != 100 else ""),
        "revision": git_revision(),
        "machine": machine(),
        "blanks": len(rows),
        "tests": len({r["test"] for r in rows}),
        "flags": {
            "option-other-kind, read in the sentence": {
                "label": "val = N",
                **measure_flag(with_val, nobody, tuple(f"sentence.{p}" for p in FORM_PARTS)),
            },
            "option-other-kind, each option read on its own": {
                "label": "val = N",
                **measure_flag(with_val, nobody, tuple(f"alone.{p}" for p in FORM_PARTS)),
            },
            "option-may-be-correct": {
                "label": "rel = F",
                **measure_flag(with_rel, lambda r: r["rel"] == "F", support),
            },
            # Is a wrong answer the passage holds a sign of a working one instead?
            "passage support as a sign of a working distractor": {
                "label": "val = R or G",
                "is_flag": False,
                **measure_flag(with_val, lambda r: r["val"] in ("R", "G"), support),
            },
        },
        "per_blank": [{k: r[k] for k in ("test", "blank", "shown")} for r in rows],
    }
    data["module_agrees"] = agrees(data["flags"])
    data["seconds"] = round(time.perf_counter() - started, 1)
    write_results("option_checks", data, markdown(data))
    print(markdown(data))


if __name__ == "__main__":
    main()
