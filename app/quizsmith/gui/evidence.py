"""The evidence panel: what each metric saw and why it scored as it did, as HTML."""

from __future__ import annotations

import html
import re
from collections.abc import Collection
from typing import Any

from quizsmith.domain import Flag, Item, ScoreResult

_TITLES = {
    "overall": "Overall (estimated chance you accept it)",
    "naco": "NACo",
    "kda": "KDA",
    "exam": "EXAM",
    "mirror": "MIRROR",
    "mre": "MRE",
}


def esc(value: Any) -> str:
    return html.escape(str(value))


#: Flag severities and how the evidence and the review queue show them: "info" is a hint
#: (grey), the others are warnings that put an item first in the review queue.
SEVERITY_LABELS = {"info": "hint", "warning": "warning", "error": "error"}
HINT_COLOR = "#777777"
_grey = f" style='color:{HINT_COLOR}'"


def flag_html(flag: Flag) -> str:
    label = SEVERITY_LABELS.get(flag.severity, flag.severity)
    text = f"<b>{esc(label)}</b> ({esc(flag.metric or 'bank')}): {esc(flag.message)}"
    if flag.severity == "info":
        return f"<span style='color:{HINT_COLOR}'>{text}</span>"
    return text


def evidence_html(item: Item, stale: Collection[str] = ()) -> str:
    """The evidence of every score; metrics in `stale` (edited since, or being re-scored)
    are shown greyed under a note, so old evidence is never read as current."""
    parts = []
    if stale and any(m in item.scores for m in stale):
        parts.append(
            "<p style='background:#fbe7b5; padding:4px'><b>Out of date:</b> the greyed "
            "results below describe the text before your edit (or are being recomputed); "
            "they are replaced as the new scores arrive.</p>"
        )
    if item.flags:
        parts.append("<h3>Review reasons</h3><ul>")
        parts += [
            f"<li{_grey if f.metric in stale else ''}>{flag_html(f)}</li>" for f in item.flags
        ]
        parts.append("</ul>")
    names = [m for m in _TITLES if m in item.scores]
    names += [m for m in item.scores if m not in _TITLES]
    for name in names:
        html_text = metric_html(item.scores[name])
        if name in stale:
            html_text = f"<div{_grey}><i>(out of date)</i>{html_text}</div>"
        parts.append(html_text)
    if not parts:
        return "<p><i>No scores yet. Edit the item or press “Score all” to score it.</i></p>"
    return "\n".join(parts)


def metric_html(result: ScoreResult) -> str:
    title = _TITLES.get(result.metric, result.metric)
    if not result.scored:
        return f"<h3>{esc(title)}</h3><p><i>Not scored: {esc(result.not_scored_reason)}</i></p>"
    head = f"<h3>{esc(title)} {result.value:.2f}</h3>"
    body = {
        "naco": _naco,
        "kda": _kda,
        "exam": _exam,
        "mirror": _mirror,
        "mre": _mre,
    }.get(result.metric, _generic)(result)
    models = ", ".join(_model_names(result.model_config))
    foot = (
        f"<p style='color:#666'>Models: {esc(models)}; {result.seconds:.1f} s</p>" if models else ""
    )
    return head + body + foot


def _model_names(config: Any) -> list[str]:
    found: list[str] = []
    if isinstance(config, dict):
        for key, value in config.items():
            if key in ("model", "label") and isinstance(value, str):
                found.append(value)
            else:
                found += _model_names(value)
    elif isinstance(config, list):
        for value in config:
            found += _model_names(value)
    return list(dict.fromkeys(found))


def _naco(r: ScoreResult) -> str:
    v, e = r.values, r.evidence
    out = [
        f"<p>naturalness {float(v.get('n', 0)):.2f} · answerability {float(v.get('a', 0)):.2f}"
        f" · complexity {float(v.get('c', 0)):.2f} ({esc(v.get('steps', '?'))} steps,"
        f" {esc(v.get('expected', '?'))} expected)</p>"
    ]
    answers = e.get("answer") or []
    reasoning = e.get("reasoning") or []
    for i, answer in enumerate(answers):
        out.append(
            f"<p><b>Model's answer:</b> {esc(answer)} <b>Key:</b> {esc(e.get('key', ''))}</p>"
        )
        steps = reasoning[i] if i < len(reasoning) else []
        if steps:
            out.append("<ol>" + "".join(f"<li>{esc(s)}</li>" for s in steps) + "</ol>")
    verdicts = [str(x) for x in e.get("verdict") or [] if x]
    if verdicts:
        out.append(f"<p><b>Verdict:</b> {esc('; '.join(verdicts))}</p>")
    return "".join(out)


def _kda(r: ScoreResult) -> str:
    v, e = r.values, r.evidence
    disc = v.get("kda_disc")
    out = [
        f"<p>KDA_cont {float(r.value or 0):.2f} · KDA_disc "
        f"{'undefined' if disc is None else f'{float(disc):.2f}'}</p>"
    ]
    if e.get("interpretation"):
        out.append(f"<p>{esc(e['interpretation'])}</p>")
    if e.get("fact"):
        out.append(f"<p><b>Fact:</b> {esc(e['fact'])}</p>")
    rows = e.get("solvers") or []
    if rows:
        # Three columns, "without → with the fact" in each: five did not fit the editor.
        out.append(
            "<table border='1' cellspacing='0' cellpadding='3'><tr><th>Solver</th>"
            "<th>P(key) without → with fact</th><th>Choice without → with fact</th></tr>"
        )
        for row in rows:
            out.append(
                f"<tr><td>{_solver_label(row.get('solver'))}</td>"
                f"<td>{float(row.get('p_key_without_fact', 0)):.2f} → "
                f"{float(row.get('p_key_with_fact', 0)):.2f}</td>"
                f"<td>{esc(row.get('choice_without_fact'))} → "
                f"{esc(row.get('choice_with_fact'))}</td></tr>"
            )
        out.append("</table>")
    dis = e.get("distractors") or []
    if dis:
        out.append(
            "<p><b>Distractors</b></p><table border='1' cellspacing='0' cellpadding='3'>"
            "<tr><th>Option</th><th>Chosen without → with fact</th>"
            "<th>Mean P without fact</th></tr>"
        )
        for d in dis:
            out.append(
                f"<tr><td>{esc(d.get('option'))}</td><td>{esc(d.get('chosen_without_fact'))}"
                f" → {esc(d.get('chosen_with_fact'))}</td>"
                f"<td>{float(d.get('mean_p_without_fact', 0)):.2f}</td></tr>"
            )
        out.append("</table>")
    skipped = e.get("skipped_solvers") or {}
    if skipped:
        out.append("<p><i>Skipped: " + esc("; ".join(f"{k}: {v}" for k, v in skipped.items())))
        out.append("</i></p>")
    return "".join(out)


def _solver_label(label: Any) -> str:
    """ "model/style" as the model on one line and the prompt style under it: a narrow
    editor would otherwise break model names in the middle."""
    model, _, style = str(label or "").rpartition("/")
    if not model:
        return f"<span style='white-space:nowrap'>{esc(style)}</span>"
    return f"<span style='white-space:nowrap'>{esc(model)}</span><br><i>{esc(style)}</i>"


def _exam(r: ScoreResult) -> str:
    e = r.evidence
    answered = e.get("answered")
    return (
        f"<p>Q/A system answered: <b>{esc('(abstained)' if answered is None else answered)}"
        f"</b>; key: {esc(e.get('key', ''))}. {esc(e.get('reason', ''))}</p>"
    )


def _mirror(r: ScoreResult) -> str:
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


def _mre(r: ScoreResult) -> str:
    v, e = r.values, r.evidence
    measures = ("bleu4", "rouge_l", "meteor", "bertscore")
    out = [
        "<table border='1' cellspacing='0' cellpadding='3'><tr><th></th>"
        + "".join(f"<th>{m}</th>" for m in measures)
        + "</tr>"
    ]
    for kind in ("sre", "mre"):
        cells = "".join(f"<td>{float(v.get(f'{kind}_{m}', 0)):.2f}</td>" for m in measures)
        out.append(f"<tr><td>{kind.upper()}</td>{cells}</tr>")
    out.append("</table>")
    refs = e.get("paraphrases") or e.get("kept") or []
    if refs:
        out.append("<p><b>References:</b></p><ul>")
        out += [f"<li>{esc(p)}</li>" for p in refs]
        out.append("</ul>")
    return "".join(out)


def _generic(r: ScoreResult) -> str:
    simple = {k: v for k, v in r.values.items() if isinstance(v, int | float | str | bool)}
    return "<p>" + esc(", ".join(f"{k} {v}" for k, v in simple.items())) + "</p>"


def passage_html(text: str, fact: str) -> str:
    """The passage with the target fact highlighted (whitespace-insensitive match)."""
    body = esc(text)
    fact = fact.strip()
    if fact:
        words = [re.escape(esc(w)) for w in fact.split()]
        pattern = re.compile(r"\s+".join(words), re.IGNORECASE)
        body = pattern.sub(lambda m: f"<span style='background:#ffe58a'>{m.group(0)}</span>", body)
    return "<p style='white-space:pre-wrap'>" + body + "</p>"
