"""JSONL export and import of the whole bank."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizsmith.bank import BankError, ItemBank
from quizsmith.domain import Flag, Item, Passage, ScoreResult
from quizsmith.errors import CancelledError
from quizsmith.jobs import CancelToken

from .helpers import mcq

UNICODE = [
    ("¿Qué élève a écrit « Les Misérables » ?", "Victor Hugo", ["Émile Zola", "Molière"]),
    ("東京はどの国の首都ですか？", "日本", ["中国", "韓国"]),
    ("ما هي عاصمة مصر؟", "القاهرة", ["الإسكندرية", "أسوان"]),
    ("Which emoji means fire? 🔥", "🔥", ["💧", "🌬️"]),
    ('Straße oder Strasse – "quotes" and \\ backslash?\nSecond line', "Straße", ["Weg", "Pfad"]),
]


def _fill(bank: ItemBank) -> None:
    shared = Passage(text="Texte partagé : ñ, ü, ø, 漢字, עברית.", title="Mixte", subject="Langues")
    for n, (stem, key, distractors) in enumerate(UNICODE):
        item_id = bank.add_item(
            mcq(
                stem,
                key,
                distractors,
                passage=shared if n < 3 else None,
                subject="Langues" if n % 2 else "Culture générale",
                tags=["unicode", f"tag-{n}", "Ñandú"],
                difficulty=("recall", "understanding", "application", None, "recall")[n],
                target_fact=f"Fact {n} — ✓",
                reference="Référence ?" if n == 0 else None,
                provenance={
                    "model": "smollm2",
                    "seed": n,
                    "nested": {"π": 3.14159, "list": [1, "两"]},
                },
                flags=[Flag("answer-differs", f"Réponse différente {n}", "naco")],
            )
        )
        bank.add_score(item_id, ScoreResult(metric="naco", value=0.1 * n, values={"steps": n}))
        bank.add_score(
            item_id,
            ScoreResult(
                metric="naco",
                value=0.5,
                values={"n": 1, "a": 0.25, "steps": 2},
                evidence={"cot": f"Étape 1 → étape 2 🔥 {n}"},
                model_config={"model": "gemma", "temperature": 0.7},
                seconds=1.25,
            ),
        )
        bank.add_score(item_id, ScoreResult.not_scored("kda", "aucun solveur"))
        if n % 2:
            bank.review(item_id, "needs-review", "deux bonnes réponses", "à vérifier ✎")
            bank.review(item_id, "accept")
    bank.add_item(Item(type="short", stem="Capital of Peru?", key="Lima", subject="Géo"))
    bank.add_item(
        Item(type="cloze", stem="The ____ is the powerhouse of the cell.", key="mitochondrion")
    )
    bank.add_item(Item.from_dict({"type": "tf", "question": "Water is wet.", "answer": "True"}))
    bank.add_passage(
        Passage(text="A passage nobody has used yet. ☕", title="Spare", source_file="s.txt")
    )
    bank.create_quiz("Quiz ünïcödé 1", [3, 1, 2])
    bank.create_quiz("Empty quiz")
    bank.add_item(mcq("Tagged only?", "Yes", ["No"], tags=["orphan-tag"]))
    bank.delete_item(9)  # leaves a tag and an id gap behind


def test_export_import_export_is_byte_identical(tmp_path: Path, bank: ItemBank) -> None:
    _fill(bank)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert bank.export_jsonl(first) == 8
    with ItemBank(tmp_path / "copy.qbank") as copy:
        result = copy.import_jsonl(first)
        assert (result.items, result.quizzes, result.renumbered) == (8, 2, {})
        assert copy.export_jsonl(second) == 8
        assert copy.integrity_problems() == []
        # what came back is usable, not just equal text
        assert [q.item_ids for q in copy.quizzes()] == [[3, 1, 2], []]
        assert copy.get_item(2).status == "accepted"
        assert [r.decision for r in copy.reviews(2)] == ["needs-review", "accept"]
        assert [s.value for s in copy.score_history(3, "naco")] == [0.2, 0.5]
        assert [i.id for i in copy.search("misérables")] == [1]
        assert "orphan-tag" in copy.tags()
    assert first.read_bytes() == second.read_bytes()
    text = first.read_text(encoding="utf-8")
    assert "東京" in text and "🔥" in text and "\\u" not in text.replace("\\\\u", "")


def test_item_lines_are_the_interchange_format(tmp_path: Path, bank: ItemBank) -> None:
    _fill(bank)
    out = tmp_path / "bank.jsonl"
    bank.export_jsonl(out)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    items = [obj for obj in lines if "record" not in obj]
    for key in (
        "id",
        "type",
        "passage",
        "fact",
        "question",
        "answer",
        "distractors",
        "reference",
        "scores",
        "flags",
        "provenance",
        "status",
        "subject",
        "tags",
        "difficulty",
    ):
        assert all(key in obj for obj in items), key
    assert items[0]["scores"]["naco"]["value"] == 0.5
    assert [Item.from_dict(obj).stem for obj in items][:2] == [UNICODE[0][0], UNICODE[1][0]]
    assert [obj["record"] for obj in lines if "record" in obj] == [
        "passage",
        "quiz",
        "quiz",
        "names",
    ]


def test_export_of_one_status_holds_only_those_items(tmp_path: Path, bank: ItemBank) -> None:
    _fill(bank)
    out = tmp_path / "accepted.jsonl"
    assert bank.export_jsonl(out, status="accepted") == 2
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [obj["status"] for obj in lines] == ["accepted", "accepted"]


def test_a_malformed_line_is_named_and_nothing_is_imported(tmp_path: Path, bank: ItemBank) -> None:
    good = json.dumps(mcq().to_dict())
    for n, bad in enumerate(
        [
            '{"question": "Broken", "answer": ',
            '{"question": "No answer"}',
            '{"question": "Q?", "answer": "A", "status": "done"}',
            '{"question": "Q?", "answer": "A", "distractors": ["A"]}',
            '{"record": "quiz", "name": "Q"}',
            '{"record": "spaceship"}',
            "[1, 2, 3]",
        ]
    ):
        path = tmp_path / f"bad{n}.jsonl"
        path.write_text(f"{good}\n\n{good}\n{bad}\n{good}\n", encoding="utf-8")
        with pytest.raises(BankError, match="Line 4 of") as info:
            bank.import_jsonl(path)
        assert "nothing has been imported" in info.value.fix
    assert bank.count() == 0


def test_a_quiz_line_naming_an_item_not_in_the_file_imports_nothing(
    tmp_path: Path, bank: ItemBank
) -> None:
    path = tmp_path / "quiz.jsonl"
    item = mcq(id=1).to_dict()
    quiz = {"record": "quiz", "name": "Q", "items": [1, 2]}
    path.write_text(json.dumps(item) + "\n" + json.dumps(quiz) + "\n", encoding="utf-8")
    with pytest.raises(BankError, match="Line 2"):
        bank.import_jsonl(path)
    assert bank.count() == 0 and bank.quizzes() == []


def test_import_into_a_used_bank_renumbers_and_follows_quizzes(
    tmp_path: Path, bank: ItemBank
) -> None:
    _fill(bank)
    out = tmp_path / "bank.jsonl"
    bank.export_jsonl(out)
    before = bank.count()
    result = bank.import_jsonl(out)
    assert bank.count() == 2 * before
    assert result.renumbered[1] == 10 and len(result.renumbered) == before
    names = [q.name for q in bank.quizzes()]
    assert names == [
        "Quiz ünïcödé 1",
        "Empty quiz",
        "Quiz ünïcödé 1 (imported)",
        "Empty quiz (imported)",
    ]
    copy = bank.quizzes()[2]
    assert copy.item_ids == [result.renumbered[i] for i in (3, 1, 2)]
    assert len(bank.passages()) == 2  # identical passages are not stored twice


def test_external_items_without_bank_ids(tmp_path: Path, bank: ItemBank) -> None:
    path = tmp_path / "generated.jsonl"
    path.write_text(
        "\ufeff"
        + json.dumps({"id": "p1-q1", "question": "2+2?", "answer": "4", "distractors": ["3", "5"]})
        + "\n"
        + json.dumps({"question": "Capital of Peru?", "answer": "Lima", "passage": "Lima is..."})
        + "\n",
        encoding="utf-8",
    )
    result = bank.import_jsonl(path)
    assert result.items == 2 and result.passages == 1
    first = bank.get_item(1)
    assert first.provenance["source_id"] == "p1-q1" and first.type == "mcq"
    assert bank.get_item(2).passage is not None


def test_cancelled_import_leaves_the_bank_unchanged(tmp_path: Path, bank: ItemBank) -> None:
    path = tmp_path / "many.jsonl"
    lines = [json.dumps(mcq(stem=f"Q{n}?").to_dict()) for n in range(1200)]
    path.write_text("\n".join(lines), encoding="utf-8")
    token = CancelToken()
    job = bank.import_jsonl_job(path, cancel=token)
    assert next(job).done == 500
    token.cancel()
    with pytest.raises(CancelledError):
        next(job)
    assert bank.count() == 0
    assert bank.import_jsonl(path).items == 1200


def test_unwritable_export_is_a_clear_error(tmp_path: Path, bank: ItemBank) -> None:
    bank.add_item(mcq())
    with pytest.raises(BankError, match="Could not write"):
        bank.export_jsonl(tmp_path / "missing-folder" / "out.jsonl")
    assert list(tmp_path.glob("**/*.tmp")) == []
