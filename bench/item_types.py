"""True/false and fill-in-the-blank items judged on labelled cloze tests (issue 27, item 3).

CELA (/work/shared/data/cela, README.md there): cloze tests with four options per blank and
native speakers' `rel` label (T: exactly one option fits, F: not). From each labelled blank:

- a cloze item: stem = the blank's sentence (the other blanks filled with their keys),
  passage = the whole article with its keys filled in (the cloze signal takes the sentence
  out itself, as it does in the app), options = the four options; label rel T/F;
- true/false items: the sentence with the key filled in (key True) and with one distractor
  (seeded choice, key False); passage = the filled article. For rel=T blanks the False
  item's key is right; for rel=F blanks it may not be (another option fits as well), so
  those are reported apart and left out of the calibration.

    python bench/item_types.py collect --per-test 6 --seed 27   # signals, resumable
    python bench/item_types.py report                           # AUC, CV, thresholds

`collect` appends one line per item to packaging/estimators/item_types.jsonl (light
profile's reader, Gemma 270M, as `quality.metric._reader` picks it); `report` writes the
`item_types` section of bench/results/estimators.json (evaluation/item_type_calibration.py
measures). The
shipped resources/item_type_calibration.json is built from the same readings by
`python -m quizsmith.evaluation.train_estimator --config packaging/estimators/item_types.toml`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import git_revision, machine, write_results

CELA = Path("/work/shared/data/cela")
#: The per-blank readings: the input of the shipped calibration's config, so they live beside it.
ITEMS = Path(__file__).resolve().parents[1] / "packaging" / "estimators" / "item_types.jsonl"
BLANK = "_____"


def cela_blanks(
    per_test: int, seed: int, f_per_test: int = 99, tests: int = 100, every_label: bool = False
) -> list[dict[str, Any]]:
    """Labelled blanks of `tests` tests (a seeded choice): up to `per_test` rel=T and up to
    `f_per_test` rel=F blanks of each (seeded), with the filled article, the blank's
    sentence and the options. `total_T`/`total_F`: how many the test has (the sampling
    weights of the calibration). With `every_label`, every blank labelled for `rel` or
    `val` (bench/option_checks.py), `rel`/`val` None where a blank lacks that label."""
    import re

    from quizsmith.generation.sentences import split_sentences

    labels = json.loads((CELA / "cela.json").read_text())
    rng = random.Random(seed)
    out = []
    paths = sorted((CELA / "cloze_tests").glob("*.json"))
    paths = sorted(random.Random(seed).sample(paths, min(tests, len(paths))))
    for path in paths:
        test = json.loads(path.read_text())
        tid = path.stem
        keys = [
            opts["ABCD".index(a)] for opts, a in zip(test["options"], test["answers"], strict=True)
        ]
        # Spaces collapsed piece by piece, so each key's offset is taken in the final text
        # (searching for the key again found "as" inside "was": 43 of 2,000 blanks).
        pieces = [re.sub(r"[ \t]+", " ", p) for p in re.split(r"_+", test["article"])]
        text, spans = pieces[0], []
        for key, after in zip(keys, pieces[1:], strict=True):
            spans.append((len(text), len(text) + len(key)))
            text += key + after
        sentences = split_sentences(text)
        rel = labels.get(tid, {}).get("rel", {})
        true_ids = [int(n) for n, v in rel.items() if v == "T"]
        false_ids = [int(n) for n, v in rel.items() if v == "F"]
        rng.shuffle(true_ids)
        rng.shuffle(false_ids)
        chosen = sorted(false_ids[:f_per_test] + true_ids[:per_test])
        val = labels.get(tid, {}).get("val", {})
        if every_label:
            chosen = sorted({*(int(n) for n in rel), *(int(n) for n in val)})
        for number in chosen:
            start, end = spans[number - 1]
            sentence = next(s for s in sentences if s.start <= start < s.end)
            before, after = text[sentence.start : start], text[end : sentence.end]
            options = test["options"][number - 1]
            key = keys[number - 1]
            wrong = [o for o in options if o != key]
            out.append(
                {
                    "test": tid,
                    "source": tid.split("_")[0],
                    "blank": number,
                    "rel": rel.get(str(number)),
                    "val": val.get(str(number)),
                    "key_start": start,
                    "passage": text,
                    "stem": before + BLANK + after,
                    "true_statement": before + key + after,
                    "false_statement": before + rng.choice(wrong) + after,
                    "key": key,
                    "options": options,
                    "total_T": len(true_ids),
                    "total_F": len(false_ids),
                }
            )
    return out


def collect(args: argparse.Namespace) -> None:
    from quizsmith.metrics.base import MetricContext
    from quizsmith.quality.item_types import cloze_signals, tf_signals
    from quizsmith.quality.metric import _reader

    ctx = MetricContext()
    reader = _reader(ctx)
    done = set()
    if ITEMS.exists():
        for line in ITEMS.read_text().splitlines():
            row = json.loads(line)
            done.add((row["test"], row["blank"], row["kind"]))
    blanks = [
        b
        for b in cela_blanks(args.per_test, args.seed, args.f_per_test, args.tests)
        if (b["test"], b["blank"], args.kind) not in done
    ]
    if args.limit:
        blanks = blanks[: args.limit]
    print(f"{len(blanks)} blanks to read with {reader.info.label()}", flush=True)
    ITEMS.parent.mkdir(exist_ok=True)
    with ITEMS.open("a") as out:
        for n, b in enumerate(blanks, 1):
            started = time.perf_counter()
            # Ids and outputs only: CELA's text stays outside the repository (its README).
            keep = ("test", "source", "blank", "rel", "total_T", "total_F")
            row = {k: b[k] for k in keep}
            row["kind"] = args.kind
            if args.kind == "cloze":
                distractors = [o for o in b["options"] if o != b["key"]]
                cloze = cloze_signals(reader, b["passage"], b["stem"], b["key"], distractors, None)
                row["cloze_key_share"] = cloze.values["cloze_key_share"]
                row["cloze_key_lp"] = cloze.values["cloze_key_lp"]
                for name in ("cloze_sentence_share", "cloze_sentence_lead", "cloze_key_lead"):
                    row[name] = cloze.values.get(name)
                row["sentence_removed"] = cloze.evidence["sentence_removed"]
            else:
                true = tf_signals(reader, b["passage"], b["true_statement"], "True")
                false = tf_signals(reader, b["passage"], b["false_statement"], "False")
                row["tf_true_margin"] = true.values["tf_margin_true"]
                row["tf_false_margin"] = false.values["tf_margin_true"]
                row["tf_true_support"] = true.values["tf_support"]
                row["tf_false_support"] = false.values["tf_support"]
            row["seconds"] = round(time.perf_counter() - started, 2)
            row["reader"] = reader.info.label()
            out.write(json.dumps(row) + "\n")
            out.flush()
            if n % 10 == 0:
                print(f"{n}/{len(blanks)} {row['seconds']} s", flush=True)


def report(args: argparse.Namespace) -> None:
    from quizsmith.evaluation.item_type_calibration import calibration_report

    rows = [json.loads(line) for line in ITEMS.read_text().splitlines()]
    data: dict[str, Any] = {"machine": machine(), "revision": git_revision(), "seed": 27}
    data.update(calibration_report(rows))
    print(json.dumps({k: v for k, v in data.items() if k != "machine"}, indent=1))
    write_results("estimators", data, markdown(data), section="item_types")


def markdown(data: dict[str, Any]) -> str:
    """Tables of each signal's AUC and each fit's out-of-fold figures (the full numbers are in
    bench/results/estimators.json)."""
    lines = [
        "# True/false and fill-in-the-blank on CELA (bench/item_types.py)",
        "",
        f"`bench/item_types.py report` at {data['revision']}, {data['machine']['date']}, "
        f"{data['machine']['cpu']}; reader {data['reader']}. AUC [95% interval, tests "
        'resampled]; docs/evaluation.md, "True/false and fill-in-the-blank", reads them.',
        "",
        "| item type | n | signal or fit | AUC | out-of-fold Brier (base) |",
        "| --- | ---: | --- | --- | --- |",
    ]
    for kind, n_key in (("tf", "n_statements"), ("cloze", "n")):
        part = data.get(kind) or {}
        for name, sig in part.get("signals", {}).items():
            low, high = sig["auc_ci"]
            auc = f"{sig['auc']:.3f} [{low:.2f}, {high:.2f}]"
            lines.append(f"| {kind} | {part[n_key]} | {name} | {auc} | |")
        fits = part.get("fits") or ({"logistic": part} if "oof_auc" in part else {})
        for name, fit in fits.items():
            ci = fit["oof_auc_ci"]
            brier = fit.get("oof_brier", fit.get("oof_brier_weighted"))
            base = part.get("base_brier", part.get("base_brier_weighted"))
            chosen = " (shipped)" if name == part.get("chosen") else ""
            lines.append(
                f"| {kind} | {part[n_key]} | fit: {name}{chosen} | {fit['oof_auc']:.3f} "
                f"[{ci[0]:.2f}, {ci[1]:.2f}] | {brier:.4f} ({base:.4f}) |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--per-test", type=int, default=6)
    c.add_argument("--seed", type=int, default=27)
    c.add_argument("--limit", type=int, default=0)
    c.add_argument("--f-per-test", type=int, default=99)
    c.add_argument("--tests", type=int, default=100)
    c.add_argument("--kind", choices=("tf", "cloze"), required=True)
    sub.add_parser("report")
    args = parser.parse_args()
    collect(args) if args.command == "collect" else report(args)


if __name__ == "__main__":
    main()
