"""Storing scores: a metric's result always goes to the bank with that metric's flags, in
one transaction, and only against the text it was computed for."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.operations.changes import OpChanges

#: Stored (as a "not scored" result) for a metric whose score describes text since edited.
STALE_REASON = (
    "the item was edited after this score was computed; it is re-scored after an edit "
    "(live metrics) or with Score all"
)


def content_signature(item: Item) -> tuple[object, ...]:
    """What a score describes: the item's type, wording, options and target fact. A score
    is stored only against an item whose stored content has this same signature."""
    options = tuple(sorted((o.text.strip(), bool(o.is_key)) for o in item.options))
    return (
        item.type,
        item.stem.strip(),
        item.key.strip(),
        options,
        (item.target_fact or "").strip(),
    )


def save_score(
    bank: ItemBank, item_id: int, result: ScoreResult, flags: Sequence[Flag]
) -> OpChanges:
    """Store a metric's result and replace that metric's flags with `flags`, atomically."""
    bank.save_score(item_id, result, list(flags))
    return OpChanges(items=frozenset({item_id}), scores=True, flags=True)


def store_if_current(
    bank: ItemBank, scored: Item, result: ScoreResult, flags: Sequence[Flag]
) -> OpChanges:
    """Store a metric's result for `scored` unless the bank's item has been edited since it
    was scored (a result must never be saved against newer text). One transaction, so a
    save cannot slip in between the check and the write. Empty changes: not stored."""
    if scored.id is None:
        return OpChanges()
    with bank.transaction():
        stored = bank.get_items([scored.id], with_passages=False)
        if not stored or content_signature(stored[0]) != content_signature(scored):
            return OpChanges()
        return save_score(bank, scored.id, result, flags)


def save_edited_item(
    bank: ItemBank, draft: Item, fresh_metrics: Iterable[str], content_changed: bool
) -> OpChanges:
    """Save an editor's item: its content, the scores computed for exactly that content
    (`fresh_metrics`, taken from `draft.scores` with their flags), and, when the wording
    changed, a "not scored" marker for every other stored score; the draft is dropped.
    All in one transaction, so no list ever shows the new text with the old numbers."""
    fresh = sorted(set(fresh_metrics))
    with bank.transaction():
        bank.update_item(draft)
        if draft.id is None:  # not reached: update_item refuses an item without an id
            return OpChanges(content=True)
        bank.delete_draft(draft.id)
        changes = OpChanges(items=frozenset({draft.id}), content=True, drafts=True)
        if content_changed:
            changes |= mark_stale(bank, draft.id, keep=fresh)
        for metric in fresh:
            result = draft.scores.get(metric)
            if result is not None:
                flags = [f for f in draft.flags if f.metric == metric]
                changes |= save_score(bank, draft.id, result, flags)
    return changes


def mark_stale(bank: ItemBank, item_id: int, keep: Iterable[str] = ()) -> OpChanges:
    """The item's wording changed: every stored score not in `keep` now describes the old
    text. Each gets a "not scored" entry saying so (the numbers stay in the history), and
    its flags go, so no list shows old numbers as current."""
    kept = set(keep)
    changes = OpChanges()
    with bank.transaction():
        stored = bank.get_items([item_id], with_passages=False)
        for metric in sorted(stored[0].scores if stored else {}):
            if metric not in kept:
                changes |= save_score(
                    bank, item_id, ScoreResult.not_scored(metric, STALE_REASON), []
                )
    return changes
