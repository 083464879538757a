"""Saving in the item editor keeps what the editor does not show: an imported item's
accepted answers, numerical key, images and partial credit (they were dropped on Save)."""

from __future__ import annotations

from typing import Any

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Accepted, Item, Media, NumericKey, Option, Passage


def test_save_keeps_accepted_answers_numeric_key_media_and_credit(
    window: Any, qtbot: Any, bank: ItemBank
) -> None:
    pid = bank.add_passage(Passage(text="Pi is about 3.14159. Ulysses S. Grant is buried here."))
    short = bank.add_item(
        Item(
            type="short",
            stem="Who is buried in Grant's tomb?",
            key="Ulysses S. Grant",
            accepted=[Accepted("Ulysses Grant"), Accepted("Grant", 50.0)],
            media=[Media("tomb.png", "image/png", b"\x89PNG\r\n\x1a\n")],
            passage_id=pid,
        )
    )
    number = bank.add_item(
        Item(
            type="short",
            stem="What is pi to five decimals?",
            key="3.14159",
            numeric=NumericKey(3.14159, 0.0005),
            passage_id=pid,
        )
    )
    mcq = bank.add_item(
        Item(
            type="mcq",
            stem="Which number is pi closest to?",
            key="3.14",
            options=[Option("3.14", True, 0), Option("3.2", False, 1, 50.0), Option("4", False, 2)],
            passage_id=pid,
        )
    )
    for item_id in (short, number, mcq):
        window.editor.set_item(bank.get_item(item_id))
        assert window.editor.save()
    saved = bank.get_item(short)
    assert [(a.text, a.credit) for a in saved.accepted] == [
        ("Ulysses Grant", 100.0),
        ("Grant", 50.0),
    ]
    assert [m.name for m in saved.media] == ["tomb.png"]
    assert bank.get_item(number).numeric == NumericKey(3.14159, 0.0005)
    credits = {o.text: o.credit for o in bank.get_item(mcq).options}
    assert credits["3.2"] == 50.0 and credits["4"] == 0.0
