"""Deleting items and passages, for `quizsmith delete` and the desktop app.

An item goes with everything that describes it: its options, scores and their history,
flags, reviews, its places in quizzes, its unsaved draft, its embedding and its search
entry (the schema's ON DELETE CASCADE and triggers remove them in the same transaction).
A passage goes with its items: a passage nobody asks about is what a teacher deleting it
wants, and the bank refuses to keep items whose passage is gone.

Both front ends first describe what would go (`describe_deletion`), so the teacher confirms
a sentence that names the numbers, then delete in one transaction: all or nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quizsmith.bank.errors import BankError
from quizsmith.bank.store import ItemBank
from quizsmith.operations.changes import OpChanges
from quizsmith.operations.passages import passage_label


@dataclass(frozen=True)
class DeletionPlan:
    """What a deletion would remove, in numbers a confirmation can name."""

    item_ids: tuple[int, ...]
    passage_ids: tuple[int, ...] = ()
    #: Of the items, how many a teacher has accepted (the ones most worth a second thought).
    accepted: int = 0
    #: Quizzes that would lose at least one item, by name.
    quizzes: tuple[str, ...] = ()
    #: The passages' titles (or first words), as the passage list shows them.
    passages: tuple[str, ...] = ()

    def sentence(self) -> str:
        """The plan as one sentence for a confirmation ("Delete 3 items (1 accepted) ...")."""
        n = len(self.item_ids)
        items = f"{n} item{'s' if n != 1 else ''}"
        if self.accepted:
            items += f" ({self.accepted} accepted)"
        if self.passages:
            names = ", ".join(f"“{t}”" for t in self.passages)
            what = f"the passage{'s' if len(self.passages) != 1 else ''} {names}"
            about = "them" if len(self.passages) != 1 else "it"
            what += f" and the {items} written about {about}" if n else " (it has no items)"
        else:
            what = items
        text = f"Delete {what}"
        if n:
            text += ", with their scores, flags and reviews"
        if self.quizzes:
            text += f"; {'they leave' if n != 1 else 'it leaves'} "
            text += f"the quiz{'zes' if len(self.quizzes) != 1 else ''} "
            text += ", ".join(f"“{q}”" for q in self.quizzes)
        return text + ". This cannot be undone."


def describe_deletion(
    bank: ItemBank, item_ids: Sequence[int] = (), passage_ids: Sequence[int] = ()
) -> DeletionPlan:
    """What `delete` would remove for these items and passages; an id that is not in the
    bank is a BankError naming it (nothing is deleted by asking)."""
    ids = list(dict.fromkeys(int(i) for i in item_ids))
    found = {it.id: it for it in bank.get_items(ids, with_passages=False)}
    missing = [str(i) for i in ids if i not in found]
    if missing:
        raise BankError(
            f"No item with id {', '.join(missing)} in {bank.path.name}.",
            "Check the ids (quizsmith export --format csv lists them); nothing was deleted.",
        )
    passages = list(dict.fromkeys(int(p) for p in passage_ids))
    labels = []
    for passage_id in passages:
        # A BankError names a passage that is not there.
        labels.append(passage_label(bank.get_passage(passage_id)))
        for item in bank.items_of_passage(passage_id):
            found.setdefault(item.id, item)
    all_ids = tuple(sorted(i for i in found if i is not None))
    quizzes = tuple(
        q.name for q in bank.quizzes() if any(item_id in all_ids for item_id in q.item_ids)
    )
    accepted = sum(1 for i in all_ids if found[i].status == "accepted")
    return DeletionPlan(all_ids, tuple(passages), accepted, quizzes, tuple(labels))


def delete(
    bank: ItemBank, item_ids: Sequence[int] = (), passage_ids: Sequence[int] = ()
) -> OpChanges:
    """Delete the items, and the passages with all their items, in one transaction."""
    plan = describe_deletion(bank, item_ids, passage_ids)
    with bank.transaction():
        if plan.item_ids:
            bank.delete_items(plan.item_ids)
        for passage_id in plan.passage_ids:
            bank.delete_passage(passage_id)
    return OpChanges(
        items=frozenset(plan.item_ids),
        deleted=frozenset(plan.item_ids),
        passages=frozenset(plan.passage_ids),
    )
