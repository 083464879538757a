"""The evidence panel: what each metric saw and why it scored as it did, as HTML."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from quizsmith.bank.dedupe import FLAG_METRIC as DEDUPE_METRIC
from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.gui.scores import SEVERITY_WORDS, chip_title
from quizsmith.metrics import registry
from quizsmith.metrics.display import esc, generic_evidence_html

#: Flag severities and how the evidence and the review queue show them: "info" is a hint
#: (grey), the others are warnings that put an item first in the review queue.
SEVERITY_LABELS = SEVERITY_WORDS
HINT_COLOR = "#777777"
_grey = f" style='color:{HINT_COLOR}'"


def flag_html(flag: Flag) -> str:
    label = SEVERITY_LABELS.get(flag.severity, flag.severity)
    # The bank's own flags (near-duplicates) name the bank, a metric's its chip title.
    source = "bank" if flag.metric in ("", None, DEDUPE_METRIC) else chip_title(flag.metric)
    text = f"<b>{esc(label)}</b> ({esc(source)}): {esc(flag.message)}"
    if flag.severity == "info":
        return f"<span style='color:{HINT_COLOR}'>{text}</span>"
    return text


#: What the "out of date" note says, by why the results are greyed.
STALE_NOTES = {
    "edited": "the greyed results below describe the text before your edit; they are "
    "replaced as the new scores arrive.",
    "recomputing": "the greyed results below are being computed again; they are replaced "
    "as the new scores arrive.",
}


def evidence_html(item: Item, stale: Collection[str] = (), why: str = "edited") -> str:
    """The evidence of every score; metrics in `stale` (edited since, or being re-scored)
    are shown greyed under a note saying `why` ("edited" or "recomputing"), so old evidence
    is never read as current."""
    parts = []
    if stale and any(m in item.scores for m in stale):
        parts.append(
            "<p style='background:#fbe7b5; padding:4px'><b>Out of date:</b> "
            f"{STALE_NOTES.get(why, STALE_NOTES['edited'])}</p>"
        )
    if item.flags:
        parts.append("<h3>Review reasons</h3><ul>")
        parts += [
            f"<li{_grey if f.metric in stale else ''}>{flag_html(f)}</li>" for f in item.flags
        ]
        parts.append("</ul>")
    # In the order the metrics are shown everywhere; any other result after them.
    shown = [cls.name for cls in registry.shown_order()]
    names = [m for m in shown if m in item.scores]
    names += [m for m in item.scores if m not in shown]
    for name in names:
        html_text = metric_html(item.scores[name])
        if name in stale:
            html_text = f"<div{_grey}><i>(out of date)</i>{html_text}</div>"
        parts.append(html_text)
    if not parts:
        return "<p><i>No scores yet. Edit the item or press “Score all” to score it.</i></p>"
    return "\n".join(parts)


def metric_html(result: ScoreResult) -> str:
    title = registry.evidence_title(result.metric)
    if not result.scored:
        return f"<h3>{esc(title)}</h3><p><i>Not scored: {esc(result.not_scored_reason)}</i></p>"
    # The number as its chip shows it ("91%", "1.4/5"), so heading and chip never disagree.
    shown = (
        registry.get(result.metric).chip_text(result)
        if result.metric in registry.names()
        else f"{result.value:.2f}"
    )
    head = f"<h3>{esc(title)} {esc(shown)}</h3>"
    # Each metric renders its own section (metrics/display.py); one not installed any more
    # shows its plain values.
    render = (
        registry.get(result.metric).evidence_html
        if result.metric in registry.names()
        else generic_evidence_html
    )
    body = render(result)
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


def passage_html(text: str, fact: str) -> str:
    """The passage with the target fact highlighted (whitespace-insensitive match)."""
    body = esc(text)
    fact = fact.strip()
    if fact:
        words = [re.escape(esc(w)) for w in fact.split()]
        pattern = re.compile(r"\s+".join(words), re.IGNORECASE)
        body = pattern.sub(lambda m: f"<span style='background:#ffe58a'>{m.group(0)}</span>", body)
    return "<p style='white-space:pre-wrap'>" + body + "</p>"
