"""Rule-made answer spans for the scoring signals (finder.py says why they stay)."""

from quizsmith.quality.rule_spans.finder import candidate_targets as candidate_targets
