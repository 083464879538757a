"""The passages the studies read: QGEval's, CELA's (blanks filled with their keys) and NACo's
SQuAD contexts, from ../shared/data (none of them written for the rules studied)."""

import argparse
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data"


def qgeval() -> list[str]:
    rows = json.loads((DATA / "qgeval" / "instances.json").read_text(encoding="utf-8"))
    return list(dict.fromkeys(r["passage"] for r in rows if "<sep>" not in r["passage"]))


def cela() -> list[str]:
    """Each cloze test's article with every blank (" _ ") filled with its key: the article
    as it was written."""
    out = []
    for path in sorted((DATA / "cela" / "cloze_tests").glob("*.json")):
        test = json.loads(path.read_text(encoding="utf-8"))
        keys = [o["ABCD".index(a)] for o, a in zip(test["options"], test["answers"], strict=True)]
        filled = iter(keys)
        out.append(re.sub(r" *_ *", lambda _, f=filled: f" {next(f)} ", test["article"]))
    return out


def squad() -> list[str]:
    with (DATA / "naco" / "squad_candidates.jsonl").open(encoding="utf-8") as lines:
        return list(dict.fromkeys(json.loads(line)["context"] for line in lines))


def every_constituent(visit) -> None:
    """Analyse every QGEval, CELA and SQuAD passage afresh (needs PYTHONPATH=app), calling
    `visit(source, constituent, tokens, sentence)` for each constituent as the analysis
    reads its sentence (`tokens`: the sentence parse's tokens of the constituent), so a
    study that patches one of the analysis's steps sees what that step made."""
    from quizsmith.generation import analysis

    read_sentence = analysis._read_sentence
    current = {"source": ""}

    def reading(passage_analysis, sentence, doc):
        read_sentence(passage_analysis, sentence, doc)
        for c in passage_analysis.in_sentence(sentence.index):
            at = c.start - sentence.start
            tokens = [t for t in doc if at <= t.idx < at + len(c.text)]
            visit(current["source"], c, tokens, sentence)

    analysis._read_sentence = reading
    try:
        for source, passages in (("qgeval", qgeval()), ("cela", cela()), ("squad", squad())):
            current["source"] = source
            for text in passages:
                analysis.analyse.cache_clear()
                analysis.analyse(text)
    finally:
        analysis._read_sentence = read_sentence


def label_share(
    cases: list[dict], label: str, passage_of, rng, field: str = "read"
) -> tuple[int, float, float, float]:
    """How many `cases` have `field` == `label`, their share, and its 95% interval over
    passages (`passage_interval`)."""

    def share(sample: list[dict]) -> float:
        return sum(c[field] == label for c in sample) / max(1, len(sample))

    low, high = passage_interval(cases, passage_of, share, rng)
    return sum(c[field] == label for c in cases), share(cases), low, high


def by_fact(rows: list[dict], variants: tuple[str, ...]) -> list[dict]:
    """Per fact (passage, fact, target), its row of each variant; facts some variant lacks
    are left out."""
    by: dict[tuple, dict] = {}
    for r in rows:
        by.setdefault((r["passage"], r["fact"], r["target"]), {})[r["variant"]] = r
    return [v for v in by.values() if len(v) == len(variants)]


def paired_readings(differ: list[dict], old: str, new: str, rng) -> None:
    """Print each variant's readings where the variants differ (`differ`: per fact, its row
    of each variant), and how often `new` read better or worse than `old` where both were
    read."""
    for variant in (old, new):
        cases = [f[variant] for f in differ if "read" in f[variant]]
        if not cases:
            continue
        counts = []
        for label in ("usable", "fix", "bad"):
            n, share, low, high = label_share(cases, label, lambda r: r["passage"], rng)
            counts.append(f"{label} {n} ({share:.0%} [{low:.0%}, {high:.0%}])")
        names = sum(r.get("read_names") == "yes" for r in cases)
        named = f"; names it {names}" if any("read_names" in r for r in cases) else ""
        print(f"{variant} where they differ, {len(cases)} read: " + ", ".join(counts) + named)
    rank = {"usable": 2, "fix": 1, "bad": 0}
    read = [f for f in differ if "read" in f[old] and "read" in f[new]]
    better = sum(rank[f[new]["read"]] > rank[f[old]["read"]] for f in read)
    worse = sum(rank[f[new]["read"]] < rank[f[old]["read"]] for f in read)
    print(f"both kept one: {new} {better} better, {worse} worse of {len(read)}")


def together_outcome(analysis, target, written, answer: str, judge=None):
    """A question written with its own answer, checked as `builder._together` checks it:
    (the target its answer follows, or None; "kept" or "dropped: why"). `judge`: the QA
    model for the kind check (None: not asked)."""
    from quizsmith.generation import distractors as dis
    from quizsmith.generation.constituent_targets import followed_target
    from quizsmith.generation.targets import listed_member

    followed = followed_target(analysis, target, answer, set()) if answer else None
    if written.text is None:
        return followed, f"dropped: {written.reason}"
    if followed is None:
        return None, "dropped: no phrase of the fact"
    if followed.answer != target.answer and listed_member(followed, analysis):
        return followed, "dropped: one of a list"
    if judge and (why := dis.key_of_another_kind(judge, written.text, followed.answer, {})):
        return followed, f"dropped: {why}"
    return followed, "kept"


def write_rows(path: Path, rows: list[dict]) -> None:
    """A study's per-case rows as JSON lines."""
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )


def written_passages() -> list[dict]:
    """The encyclopedia-style passages helper agents wrote for the project (name, subject,
    text), none read while a rule was written."""
    return json.loads((HERE / "written_passages.json").read_text(encoding="utf-8"))


def standard_model(role: str):
    """The standard profile's model for `role` ("generator", "qa"), on 2 threads as on the
    bench (needs PYTHONPATH=app)."""
    from quizsmith.providers.manager import provider_for_role
    from quizsmith.settings import Settings

    return provider_for_role(role, Settings(n_threads=2, profile="standard"))


def study_arguments(per: int, passages: int = 160) -> argparse.ArgumentParser:
    """A generation study's options: how many passages, how many targets each, and
    `--report` (the figures from the stored rows, without running a model)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--passages", type=int, default=passages)
    parser.add_argument("--per", type=int, default=per)
    parser.add_argument("--report", action="store_true", help="the figures, from the rows")
    return parser


def record(row: dict, old: dict, same: tuple[str, ...], rows: list[dict], partial: Path) -> None:
    """One case's row as a study makes it: the readings written by hand into its earlier run's
    row (`old`, fields "read...") kept where the `same` fields are unchanged; appended to
    `rows` and at once to `partial` (a crash loses nothing), and printed."""
    if all(old.get(f) == row[f] for f in same):
        row.update({k: v for k, v in old.items() if k.startswith("read")})
    rows.append(row)
    with partial.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps(row, ensure_ascii=False)[:300], flush=True)


def run_rows(path: Path, fields: tuple[str, ...], same: tuple[str, ...], make_rows) -> None:
    """A study's run: each row `make_rows(done)` yields is recorded (`record`: the readings of
    the earlier run's row with the same `fields` kept where the `same` fields are unchanged),
    then all are written to `path`. `done` holds the rows of a run stopped part way (its
    .partial.jsonl, by `fields`), for a study that goes on from them."""
    earlier = earlier_readings(path, *fields)
    partial = path.with_suffix(".partial.jsonl")
    done = earlier_readings(partial, *fields)
    partial.unlink(missing_ok=True)
    rows: list[dict] = []
    for row in make_rows(done):
        record(row, earlier.get(tuple(row[f] for f in fields), {}), same, rows, partial)
    write_rows(path, rows)
    partial.unlink()


def earlier_readings(path: Path, *fields: str) -> dict[tuple, dict]:
    """A study's per-case rows from its earlier run (its .jsonl), by the fields that name a
    case: readings written there by hand survive a rerun."""
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {tuple(row[f] for f in fields): row for row in rows}


def app_targets(text: str, n: int):
    """The passage's analysis and the first `n` targets the app would choose in it (needs
    PYTHONPATH=app)."""
    from quizsmith.generation.analysis import analyse
    from quizsmith.generation.constituent_targets import passage_targets
    from quizsmith.generation.targets import choose_targets

    analysis = analyse(text)
    targets = choose_targets(
        passage_targets(analysis), n, passage_text=text, sentences=analysis.sentences
    )
    return analysis, targets


def passage_interval(cases, passage_of, share, rng, draws: int = 2000) -> tuple[float, float]:
    """The 95% bootstrap interval of `share(cases)`, resampling whole passages (a passage's
    cases share a text, so the passage is the unit): `passage_of(case)` names its passage.
    `rng` is the caller's, so one seed serves all of a study's shares in turn."""
    names = sorted({passage_of(c) for c in cases})
    by = {p: [c for c in cases if passage_of(c) == p] for p in names}
    boot = sorted(
        share([c for p in rng.choices(names, k=len(names)) for c in by[p]]) for _ in range(draws)
    )
    return boot[int(draws * 0.025)], boot[int(draws * 0.975) - 1]
