"""QTI 1.2 (Canvas) and CSV exports read back with zipfile/ElementTree and csv."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from quizsmith.domain import Item
from quizsmith.formats import ExportOptions, export_items
from quizsmith.formats.option_order import option_orders

CP = "{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}"
Q = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"


def _metadata(item: ET.Element) -> dict[str, str]:
    return {
        f.findtext(f"{Q}fieldlabel") or "": f.findtext(f"{Q}fieldentry") or ""
        for f in item.iter(f"{Q}qtimetadatafield")
    }


def test_qti_package_has_a_manifest_pointing_at_the_assessment(
    items: list[Item], tmp_path: Path
) -> None:
    out = tmp_path / "canvas.zip"
    result = export_items(items, "qti", out, ExportOptions(title="Rivers & <Dams>", seed=8))
    assert result.count == len(items)
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None
        manifest = ET.fromstring(archive.read("imsmanifest.xml"))
        assert manifest.tag == f"{CP}manifest"
        resource = manifest.find(f"{CP}resources/{CP}resource")
        assert resource is not None and resource.get("type") == "imsqti_xmlv1p2"
        href = resource.get("href") or ""
        assert resource.find(f"{CP}file").get("href") == href  # type: ignore[union-attr]
        assert href in archive.namelist()
        root = ET.fromstring(archive.read(href))
    assessment = root.find(f"{Q}assessment")
    assert assessment is not None and assessment.get("title") == "Rivers & <Dams>"
    qti_items = assessment.findall(f"{Q}section/{Q}item")
    assert len(qti_items) == len(items)
    # Canvas lists questions by title: the start of each stem, unique in the file.
    titles = [element.get("title") or "" for element in qti_items]
    assert len(set(titles)) == len(titles)
    for title, item in zip(titles, items, strict=True):
        start = title.removesuffix("…").split(" (")[0].rstrip()
        assert " ".join(item.stem.split()).startswith(start), title
    for element, item in zip(qti_items, items, strict=True):
        meta = _metadata(element)
        condition = element.find(f"{Q}resprocessing/{Q}respcondition")
        assert condition is not None
        assert condition.findtext(f"{Q}setvar") == "100"
        right = condition.findtext(f"{Q}conditionvar/{Q}varequal")
        if item.type in ("mcq", "tf"):
            expected = "true_false_question" if item.type == "tf" else "multiple_choice_question"
            assert meta["question_type"] == expected
            labels = element.findall(f"{Q}presentation/{Q}response_lid/{Q}render_choice/"
                                     f"{Q}response_label")  # fmt: skip
            texts = [lab.findtext(f"{Q}material/{Q}mattext") for lab in labels]
            assert texts == [o.text for o in option_orders(items, 8).of(item)]
            keyed = [
                lab.get("ident")
                for lab in labels
                if lab.findtext(f"{Q}material/{Q}mattext") == item.key
            ]
            assert keyed == [right]
            assert meta["original_answer_ids"] == ",".join(lab.get("ident") or "" for lab in labels)
        else:
            assert meta["question_type"] == "short_answer_question"
            assert element.find(f"{Q}presentation/{Q}response_str/{Q}render_fib") is not None
            assert right == item.key
        assert meta["points_possible"] == "1.0"


def test_csv_has_one_row_per_item_with_scores_and_flags(items: list[Item], tmp_path: Path) -> None:
    out = tmp_path / "items.csv"
    export_items(items, "csv", out)
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")  # Excel reads UTF-8 with the BOM
    with out.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(items)
    assert list(rows[0]) == [
        "id", "type", "question", "answer", "accepted", "options", "fact", "status", "subject",
        "tags", "kda", "naco", "flags",
    ]  # fmt: skip
    first = rows[0]
    assert first["naco"] == "0.8125"
    assert first["kda"] == "not scored: answerable without the fact"
    assert first["flags"] == "Distractor 'Lake Victoria' is never chosen."
    assert first["tags"] == "africa; rivers"  # the bank sorts tags
    for row, item in zip(rows, items, strict=True):
        assert (row["id"], row["type"], row["question"], row["answer"]) == (
            str(item.id),
            item.type,
            item.stem,
            item.key,
        )
        assert json.loads(row["options"] or "[]") == [o.text for o in item.options]


def test_csv_cells_that_look_like_formulas_are_defused(tmp_path: Path) -> None:
    from .helpers import short

    out = tmp_path / "items.csv"
    export_items([short('=HYPERLINK("http://x")', "+1")], "csv", out)
    with out.open(encoding="utf-8-sig", newline="") as f:
        row = next(csv.DictReader(f))
    assert row["question"].startswith("'=") and row["answer"] == "'+1"
