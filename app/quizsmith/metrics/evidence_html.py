"""The evidence sections of the built-in metrics: what each saw and why it scored as it did,
as the simple HTML the desktop app shows (metrics/display.py). Each metric's
`evidence_html` calls its renderer here; they sit together, away from the scoring code, so
that the metric modules (NACo's is long already) hold the method and not its markup."""

from __future__ import annotations

from typing import Any

from quizsmith.domain import ScoreResult
from quizsmith.metrics.display import esc

MRE_MEASURES = ("bleu4", "rouge_l", "meteor", "bertscore")


def naco(r: ScoreResult) -> str:
    v, e = r.values, r.evidence
    steps, expected = v.get("steps", "?"), v.get("expected", "?")
    out = [
        f"<p>Reads as a question: {float(v.get('n', 0)):.2f} · the model's answer matches "
        f"the key: {float(v.get('a', 0)):.2f} · complexity as expected: "
        f"{float(v.get('c', 0)):.2f} ({esc(_count(steps, 'reasoning step'))}; "
        f"{esc(expected)} expected)</p>"
    ]
    answers = e.get("answer") or []
    reasoning = e.get("reasoning") or []
    for i, answer in enumerate(answers):
        out.append(
            f"<p><b>Model's answer:</b> {esc(answer)} <b>Key:</b> {esc(e.get('key', ''))}</p>"
        )
        steps_i = reasoning[i] if i < len(reasoning) else []
        if steps_i:
            out.append("<ol>" + "".join(f"<li>{esc(s)}</li>" for s in steps_i) + "</ol>")
    verdicts = [str(x) for x in e.get("verdict") or [] if x]
    if verdicts:
        out.append(f"<p><b>Verdict:</b> {esc('; '.join(verdicts))}</p>")
    return "".join(out)


def _count(n: Any, noun: str) -> str:
    """ "1 reasoning step", "2 reasoning steps" ("(1 steps, 2 expected)" read badly)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


#: KDA's default cut-offs (metrics/kda.py's defaults), for evidence stored with the old
#: wording, whose thresholds were not kept with it.
KDA_WEAK_BELOW, KDA_GOOD_FROM = 0.3, 0.8


def kda_reading(cont: float | None, weak_below: float, good_from: float) -> str:
    """What a KDA value means, in a teacher's words (issue 47: "KDA_cont in the middle
    range: look at the solver table")."""
    if cont is None:
        return "KDA could not be computed for this item (the model students were all sure)."
    if cont >= good_from:
        return (
            f"{good_from:.2f} or more: in the KDA paper (4.3), teachers accepted 82% of such items."
        )
    if cont < weak_below:
        return (
            f"Under {weak_below:.2f}: reviewers in the KDA paper (6.4) agreed such items are "
            "bad. Knowing the fact hardly helps to answer it."
        )
    return (
        f"Between {weak_below:.2f} and {good_from:.2f}: neither clearly good nor bad. Look at "
        "the wrong answers below: one the model students still pick when they know the fact "
        "may also be right; one nobody picks does no work."
    )


def kda(r: ScoreResult) -> str:
    v, e = r.values, r.evidence
    disc = v.get("kda_disc")
    first = "cannot be told" if disc is None else f"{float(disc):.2f}"
    out = [
        "<p>How much knowing the fact helps the model students pick the answer key, from 0 "
        f"(not at all) to 1: <b>{float(r.value or 0):.2f}</b> weighing how sure they are "
        f"(the chip's number); {first} counting only the option each picks first.</p>"
    ]
    reading = str(e.get("interpretation") or "")
    if reading.startswith("KDA_cont"):  # stored with the old wording: said again
        reading = kda_reading(r.value, KDA_WEAK_BELOW, KDA_GOOD_FROM)
    if reading:
        out.append(f"<p>{esc(reading)}</p>")
    if e.get("fact"):
        out.append(f"<p><b>Fact:</b> {esc(e['fact'])}</p>")
    rows = e.get("solvers") or []
    if rows:
        # Three columns, "without → with the fact" in each: five did not fit the editor. The
        # options are quoted: an option that is a percentage ("74%") read as a chance.
        out.append(
            "<table border='1' cellspacing='0' cellpadding='3'><tr><th>Model student</th>"
            "<th>Chance it gives the answer key: without → with the fact</th>"
            "<th>Option it picks: without → with the fact</th></tr>"
        )
        for row in rows:
            out.append(
                f"<tr><td>{_solver_label(row.get('solver'))}</td>"
                f"<td>{_percent(row.get('p_key_without_fact'))} → "
                f"{_percent(row.get('p_key_with_fact'))}</td>"
                f"<td>{_quoted(row.get('choice_without_fact'))} → "
                f"{_quoted(row.get('choice_with_fact'))}</td></tr>"
            )
        out.append("</table>")
    dis = e.get("distractors") or []
    if dis:
        out.append(
            "<p><b>Wrong answers (distractors)</b></p>"
            "<table border='1' cellspacing='0' cellpadding='3'>"
            "<tr><th>Option</th><th>Model students picking it: without → with the fact</th>"
            "<th>Their mean chance for it without the fact</th></tr>"
        )
        for d in dis:
            out.append(
                f"<tr><td>{_quoted(d.get('option'))}</td><td>{esc(d.get('chosen_without_fact'))}"
                f" → {esc(d.get('chosen_with_fact'))}</td>"
                f"<td>{_percent(d.get('mean_p_without_fact'))}</td></tr>"
            )
        out.append("</table>")
    skipped = e.get("skipped_solvers") or {}
    if skipped:
        out.append("<p><i>Skipped: " + esc("; ".join(f"{k}: {v}" for k, v in skipped.items())))
        out.append("</i></p>")
    return "".join(out)


def _percent(value: Any) -> str:
    return f"{float(value or 0):.0%}"


def _quoted(option: Any) -> str:
    """An option's text in quotes, so that "74%" reads as an option, not as a chance."""
    return f"\u201c{esc(option)}\u201d"


#: How each kind of model student answers, in words ("letter" meant nothing to teachers).
SOLVER_STYLES = {
    "letter": "picks a letter",
    "likelihood": "weighs each option's wording",
    "embedding": "compares meanings",
}


def _solver_label(label: Any) -> str:
    """ "model/style" as the model on one line and how it answers under it: a narrow
    editor would otherwise break model names in the middle."""
    model, _, style = str(label or "").rpartition("/")
    words = SOLVER_STYLES.get(style, style)
    if not model:
        return f"<span style='white-space:nowrap'>{esc(words)}</span>"
    return f"<span style='white-space:nowrap'>{esc(model)}</span><br><i>{esc(words)}</i>"


def exam(r: ScoreResult) -> str:
    e = r.evidence
    answered, key = e.get("answered"), e.get("key", "")
    if answered is None:
        reason = str(e.get("reason") or "").removeprefix("abstained: ")
        found = "did not answer (it was not sure enough"
        found += f": {esc(reason)})." if reason else ")."
    elif answered == key:
        found = f"chose the key, <b>{esc(key)}</b>."
    else:
        found = f"chose <b>{esc(answered)}</b>; the key is {esc(key)}."
    return f"<p>A question-answering model reading only the passage {found}</p>"


def mirror(r: ScoreResult) -> str:
    e = r.evidence
    out = [f"<p>{esc(e.get('note', ''))}</p>"]
    for rnd in e.get("rounds") or []:
        scores = ", ".join(f"{k} {v}" for k, v in (rnd.get("scores") or {}).items())
        out.append(f"<p><b>Round {esc(rnd.get('round'))}</b> ({esc(rnd.get('reviewer'))}): ")
        out.append(f"{esc(scores)}<br>")
        if rnd.get("strengths"):
            out.append("Strengths: " + esc("; ".join(rnd["strengths"])) + "<br>")
        if rnd.get("flaws"):
            out.append("Flaws: " + esc("; ".join(rnd["flaws"])))
        out.append("</p>")
    return "".join(out)


def mre(r: ScoreResult) -> str:
    v, e = r.values, r.evidence
    out = [
        "<table border='1' cellspacing='0' cellpadding='3'><tr><th></th>"
        + "".join(f"<th>{m}</th>" for m in MRE_MEASURES)
        + "</tr>"
    ]
    for kind in ("sre", "mre"):
        cells = "".join(f"<td>{float(v.get(f'{kind}_{m}', 0)):.2f}</td>" for m in MRE_MEASURES)
        out.append(f"<tr><td>{kind.upper()}</td>{cells}</tr>")
    out.append("</table>")
    refs = e.get("paraphrases") or e.get("kept") or []
    if refs:
        out.append("<p><b>References:</b></p><ul>")
        out += [f"<li>{esc(p)}</li>" for p in refs]
        out.append("</ul>")
    return "".join(out)
