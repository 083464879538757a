"""Swapping in one of an item's kept alternatives (the other candidates for its fact)."""

from __future__ import annotations

from collections.abc import Sequence

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item
from quizsmith.operations.changes import OpChanges
from quizsmith.operations.scores import STALE_REASON, mark_stale


def replace_with_alternative(item: Item, index: int) -> Item:
    """The item with alternative `index` swapped in; the old content becomes an alternative,
    so the swap can be undone the same way. Id, passage, status and tags stay."""
    alt = item.alternatives[index]
    old = Item(
        type=item.type,
        stem=item.stem,
        key=item.key,
        options=list(item.options),
        target_fact=item.target_fact,
        difficulty=item.difficulty,
        reference=item.reference,
        provenance=dict(item.provenance),
        flags=list(item.flags),
        scores=dict(item.scores),
    )
    others = [a for i, a in enumerate(item.alternatives) if i != index]
    return Item(
        type=alt.type,
        stem=alt.stem,
        key=alt.key,
        options=list(alt.options),
        target_fact=alt.target_fact or item.target_fact,
        passage_id=item.passage_id,
        passage=item.passage,
        status=item.status,
        difficulty=alt.difficulty or item.difficulty,
        subject=item.subject,
        tags=list(item.tags),
        reference=item.reference,
        provenance={**item.provenance, **alt.provenance},
        flags=list(alt.flags),
        scores=dict(alt.scores),
        alternatives=[old, *others],
        id=item.id,
        created=item.created,
    )


def swap_alternative(bank: ItemBank, item_id: int, index: int) -> OpChanges:
    """Replace the stored item's content with its alternative `index` (see
    `replace_with_alternative`), with the scores and flags the alternative was given when it
    was generated: they describe its text, the old ones do not. Every other stored score
    (NACo, KDA ... of the old wording) is marked out of date, as after an edit, so no list
    shows the old numbers as the new item's (issue 27); the caller re-scores it
    (`rescore_metrics`). One transaction."""
    with bank.transaction():
        swapped = replace_with_alternative(bank.get_item(item_id), index)
        bank.update_item(swapped)
        changes = mark_stale(bank, item_id, keep=swapped.scores)
        for result in swapped.scores.values():
            bank.add_score(item_id, result)
        # All flags, not one metric's: the old content's flags leave with it.
        bank.set_flags(item_id, swapped.flags)
    return changes | OpChanges(items=frozenset({item_id}), content=True, scores=True, flags=True)


def rescore_metrics(bank: ItemBank, item_id: int, live: Sequence[str]) -> list[str]:
    """Which of the `live` metrics to run after a swap: those whose stored score is now out
    of date or missing, and those that read the others (the overall estimate)."""
    from quizsmith.metrics import registry

    stored = bank.get_item(item_id)
    chosen = []
    for name in live:
        result = stored.scores.get(name)
        reads = name in registry.names() and registry.get(name).reads_scores
        if result is None or reads or result.not_scored_reason == STALE_REASON:
            chosen.append(name)
    return chosen
