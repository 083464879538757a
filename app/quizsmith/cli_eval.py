"""`quizsmith eval` (the metrics against human labels on a dataset, and fitting the overall
model) and `quizsmith refit` (the overall model refitted on a bank's own decisions)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from quizsmith import cli_help
from quizsmith.cli_shared import drive, guard_paths, positive_int, seed_int


def register(sub: Any) -> None:
    """Add the `eval` and `refit` subcommands to the CLI's subparsers."""
    p = sub.add_parser(
        "eval",
        help="check the metrics against human labels on a dataset",
        formatter_class=cli_help.RegistryHelpFormatter,
    )
    p.add_argument("dataset", help="the dataset file")
    p.add_argument(
        "--format",
        required=True,
        choices=["jsonl", "qgeval", "naco-squad", "naco-groups", "naco-variants", "quizdesign"],
        help="the dataset's format (see docs/evaluation.md)",
    )
    p.add_argument(
        "--metrics",
        default="naco,bleu,rouge,meteor,bertscore",
        help=f"comma-separated: {cli_help.METRICS},bleu,rouge,meteor,bertscore (default: "
        "naco,bleu,rouge,meteor,bertscore)",
    )
    p.add_argument("--limit", type=positive_int, help="score a stratified sample of N records")
    p.add_argument("--seed", type=seed_int, default=0, help="sampling and bootstrap seed (0)")
    p.add_argument("--report", required=True, help="write the JSON report here (+ .md beside)")
    p.add_argument("--plots", help="write PNG plots into this folder")
    p.add_argument("--cache-dir", help="result cache folder (default: the user cache folder)")
    p.add_argument(
        "--fit",
        action="store_true",
        help="fit the overall model (saved as REPORT.overall.joblib; the shipped models are "
        "rebuilt by python -m quizsmith.evaluation.train_estimator)",
    )
    p.add_argument(
        "--fit-also",
        action="append",
        metavar="FORMAT=PATH[@LIMIT]",
        help="with --fit: also fit on this dataset, scored with the same metrics (repeatable)",
    )
    p.add_argument(
        "--estimator",
        default="forest",
        # evaluation.overall.ESTIMATORS, written out: importing it here would load NumPy for
        # every command's --help.
        choices=["forest", "logistic", "boosting", "blend"],
        help="with --fit: the model kind (default forest; the shipped model is a blend; see "
        "docs/evaluation.md)",
    )
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser(
        "refit",
        help="refit the overall score on your own accept/reject decisions in a bank",
        description="Fits the overall quality estimate on the questions (multiple-choice and "
        "short-answer items) you accepted or rejected (at least 30, with 10 of each), from "
        "the scores they carry, and saves it in your config folder, where it replaces the "
        "shipped model.",
    )
    p.add_argument("--bank", required=True, help="the bank file")
    p.add_argument("--seed", type=seed_int, default=0, help="random forest and fold seed (0)")
    p.set_defaults(func=_cmd_refit)


def _cmd_eval(args: argparse.Namespace) -> int:
    from quizsmith import paths, settings
    from quizsmith.evaluation.runner import run_evaluation
    from quizsmith.jobs import CancelToken

    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    cache = Path(args.cache_dir) if args.cache_dir else paths.cache_dir() / "evaluation"
    report_md = Path(args.report).with_suffix(".md")
    guard_paths(
        [("--report", args.report), ("the report's .md", report_md)],
        [("the dataset", args.dataset)],
    )
    job = run_evaluation(
        args.dataset,
        args.format,
        names,
        args.limit,
        args.seed,
        cache,
        settings.load(),
        CancelToken(),
    )
    try:
        report = drive(job)
    except KeyboardInterrupt:
        print(
            f"Stopped by Ctrl-C. Every finished score is kept in {cache}; run the same command "
            "again to continue where it stopped.",
            file=sys.stderr,
        )
        return 130
    json_path, md_path = report.write(args.report)
    print(f"Wrote {json_path} and {md_path}.")
    for name in names:
        missing = report.data["not_scored"][name]["count"]
        print(f"  {name}: {report.data['scored'][name]} scored, {missing} not scored")
    if args.plots:
        print(f"Wrote {len(report.plots(args.plots))} plots to {args.plots}.")
    if args.fit:
        from quizsmith.evaluation.overall import fit_overall

        records, results = list(report.records), list(report.results)
        described = [f"{args.format} {Path(args.dataset).name}"]
        for extra in args.fit_also or []:
            fmt, path, limit = _parse_fit_also(extra)
            more = drive(
                run_evaluation(
                    path, fmt, names, limit, args.seed, cache, settings.load(), CancelToken()
                )
            )
            for record in more.records:
                # Groups of different datasets never meet in one fold by accident of naming.
                record.group = f"{fmt}:{record.group or record.record_id}"
            records += more.records
            results += more.results
            described.append(f"{fmt} {Path(path).name}" + (f" (limit {limit})" if limit else ""))
        model = fit_overall(
            records,
            results,
            seed=args.seed,
            kind=args.estimator,
            description=f"{' + '.join(described)}, metrics {','.join(names)}",
        )
        # Never the shipped file: that is built from checked-in inputs by its own command,
        # which its sidecar names (python -m quizsmith.evaluation.train_estimator, issue 49).
        saved, sidecar = model.save(json_path.with_suffix(".overall.joblib"))
        r = model.info["cv"]["pearson_vs_accept"]["pearson"]["value"]
        print(f"Overall model: grouped-CV Pearson r with acceptance {r}; saved {saved}, {sidecar}.")
    return 0


def _parse_fit_also(text: str) -> tuple[str, str, int | None]:
    """FORMAT=PATH[@LIMIT] -> (format, path, limit)."""
    from quizsmith.errors import QuizsmithError
    from quizsmith.evaluation.adapters import FORMATS

    fmt, sep, rest = text.partition("=")
    path, _, limit = rest.partition("@")
    if not sep or fmt not in FORMATS or not path:
        raise QuizsmithError(
            f"--fit-also {text!r} is not FORMAT=PATH[@LIMIT].",
            f"For example --fit-also naco-variants=squad_candidates.jsonl@1050; formats: "
            f"{', '.join(FORMATS)}.",
        )
    if limit and (not limit.isdigit() or int(limit) < 1):
        raise QuizsmithError(
            f"--fit-also: the limit {limit!r} is not a number of 1 or more.", "Write @N."
        )
    return fmt, path, int(limit) if limit else None


def _cmd_refit(args: argparse.Namespace) -> int:
    from quizsmith.bank import ItemBank
    from quizsmith.evaluation.refit import refit_from_bank

    with ItemBank(args.bank, create=False, read_only=True) as bank:
        model = refit_from_bank(bank, seed=args.seed)
    cv = model.info["cv"]
    r = cv["pearson_vs_accept"]["pearson"]["value"]
    n = model.info["training"]["items"]
    compared = model.info.get("refit", {})
    against = (
        f" (better than {compared['compared_with']}: AUC {compared['compared_auc']:.2f})"
        if compared
        else ""
    )
    print(
        f"Refitted the overall score on your decisions ({n} items): grouped-CV Pearson r with "
        f"your accept/reject {r}, AUC {cv['auc']}{against}. Saved {model.path}; the app and "
        "`quizsmith score` use it from now on."
    )
    return 0
