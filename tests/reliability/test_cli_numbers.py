"""Whole-number options are checked when the arguments are read (issue 48, round four).

Before: `quizsmith eval --limit -5` (or 0) ran on no record and ended with status 0; the same
held for the other counts, and a negative seed reached NumPy or scikit-learn and crashed.
Counts are 1 or more, seeds 0 to 2**32 - 1; argparse says which option and exits with 2.
"""

from __future__ import annotations

import pytest

from quizsmith.cli import build_parser, main
from quizsmith.cli_eval import _parse_fit_also
from quizsmith.cli_shared import MAX_SEED
from quizsmith.errors import QuizsmithError

EVAL = ["eval", "d.jsonl", "--format", "jsonl", "--report", "r.json"]
REFUSED = {
    "eval --limit -5": ([*EVAL, "--limit", "-5"], "--limit", "must be 1 or more, not -5"),
    "eval --limit 0": ([*EVAL, "--limit", "0"], "--limit", "must be 1 or more, not 0"),
    "eval --limit x": ([*EVAL, "--limit", "x"], "--limit", "'x' is not a whole number"),
    "eval --seed -1": ([*EVAL, "--seed", "-1"], "--seed", "must be from 0 to"),
    "generate -n 0": (["generate", "p.txt", "-n", "0", "--out", "o.jsonl"], "-n", "1 or more"),
    "generate -n -3": (["generate", "p.txt", "-n", "-3", "--out", "o"], "-n", "1 or more"),
    "generate --candidates 0": (
        ["generate", "p.txt", "--candidates", "0", "--out", "o"],
        "--candidates",
        "1 or more",
    ),
    "generate --seed 2**32": (
        ["generate", "p.txt", "--seed", str(MAX_SEED + 1), "--out", "o"],
        "--seed",
        "must be from 0 to 4,294,967,295",
    ),
    "demo -n 0": (["demo", "-n", "0"], "-n", "1 or more"),
    "refit --seed -1": (["refit", "--bank", "b", "--seed", "-1"], "--seed", "must be from 0"),
    "export --seed -2": (
        ["export", "--bank", "b", "--out", "o.gift", "--seed", "-2"],
        "--seed",
        "must be from 0",
    ),
}


@pytest.mark.parametrize(("argv", "option", "said"), list(REFUSED.values()), ids=list(REFUSED))
def test_a_count_below_one_or_a_seed_out_of_range_is_refused_when_read(
    argv: list[str], option: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and said in err and "Traceback" not in err


def test_counts_and_seeds_in_range_are_read() -> None:
    parser = build_parser()
    args = parser.parse_args([*EVAL, "--limit", "1", "--seed", str(MAX_SEED)])
    assert (args.limit, args.seed) == (1, MAX_SEED)
    args = parser.parse_args(["generate", "p.txt", "-n", "12", "--candidates", "1", "--seed", "0"])
    assert (args.n, args.candidates, args.seed) == (12, 1, 0)
    assert parser.parse_args(["demo"]).n == 3


@pytest.mark.parametrize("limit", ["0", "-1", "x", "1.5"])
def test_a_fit_also_limit_below_one_is_refused(limit: str) -> None:
    with pytest.raises(QuizsmithError, match="is not a number of 1 or more"):
        _parse_fit_also(f"naco-variants=a.jsonl@{limit}")
    assert _parse_fit_also("naco-variants=a.jsonl@7") == ("naco-variants", "a.jsonl", 7)
