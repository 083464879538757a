"""`OpChanges`: what an operation changed in the bank, for the caller to refresh from."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class OpChanges:
    """What one operation changed. A view refreshes when a field it shows is set: a score
    chip when `scores`, the review queue when `reviews` (a decision moves an item out of
    it), a passage's item list when `created` holds new items, and so on. `items` names
    every item whose stored state changed in any way."""

    items: frozenset[int] = frozenset()
    #: Passages added or edited.
    passages: frozenset[int] = frozenset()
    #: Items added, in the order they were stored.
    created: tuple[int, ...] = ()
    deleted: frozenset[int] = frozenset()
    #: The wording, options or answer of an item.
    content: bool = False
    scores: bool = False
    flags: bool = False
    #: A decision was recorded (which also sets the item's status).
    reviews: bool = False
    #: An editor's unsaved draft was stored or dropped.
    drafts: bool = False

    @property
    def empty(self) -> bool:
        return self == OpChanges()

    def __or__(self, other: OpChanges) -> OpChanges:
        """Both operations' changes (for an operation made of several)."""
        merged: dict[str, object] = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, bool):
                merged[f.name] = mine or theirs
            elif isinstance(mine, tuple):
                merged[f.name] = (*mine, *(i for i in theirs if i not in mine))
            else:
                merged[f.name] = mine | theirs
        return OpChanges(**merged)  # type: ignore[arg-type]
