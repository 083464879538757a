"""QTI 1.2 package for Canvas Classic Quizzes (export only).

A zip with `imsmanifest.xml` (IMS Content Packaging; one resource of type
`imsqti_xmlv1p2` pointing at the assessment file) and `<ident>/<ident>.xml`, a
`questestinterop` document with one assessment, one section and an item per question. Items
carry the `itemmetadata` Canvas reads (`question_type`, `points_possible`,
`original_answer_ids`): multiple_choice_question and true_false_question use
`response_lid`/`render_choice` with a `resprocessing` condition setting SCORE to 100 for the
key; short answers and cloze items (blank shown as "_____") are short_answer_question with
`response_str`/`render_fib` and one `varequal` per accepted answer; items with a numerical key
are numerical_question (`varequal` or-ed with the `vargte`/`varlte` range, as Canvas itself
exports them). Options are written in the order of the export seed (`option_order`). An
item's images go in the zip under `web_resources/<item>/` (a `webcontent` resource of the
manifest) and are shown in its text through `$IMS-CC-FILEBASE$/...`, as in Canvas's own
packages. What Canvas cannot score or show (partial credit, units, sounds) is left out and
listed in `simplified`.
"""

from __future__ import annotations

import hashlib
import html
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from quizsmith.domain import Item, format_number
from quizsmith.errors import quoted
from quizsmith.formats.base import (
    Exporter,
    ExportOptions,
    ExportResult,
    Skipped,
    cloze_stem,
    xml_safe,
)
from quizsmith.formats.markup import text_to_html
from quizsmith.formats.names import QuestionNames
from quizsmith.formats.option_order import OptionOrders, option_orders

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
CP_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
QTI_SCHEMA = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd"
CP_SCHEMA = "http://www.imsglobal.org/xsd/imscp_v1p1.xsd"


def _ident(*parts: object) -> str:
    # Canvas wants identifiers that are stable for the same content and start with a letter.
    digest = hashlib.sha1("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()
    return "g" + digest[:31]


def _meta_fields(parent: ET.Element, fields: list[tuple[str, str]]) -> None:
    meta = ET.SubElement(parent, "qtimetadata")
    for label, entry in fields:
        field = ET.SubElement(meta, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry


def _material(parent: ET.Element, text: str, html: bool, extra_html: str = "") -> None:
    material = ET.SubElement(parent, "material")
    mattext = ET.SubElement(
        material, "mattext", {"texttype": "text/html" if html else "text/plain"}
    )
    body = f"<div><p>{text_to_html(text)}</p>{extra_html}</div>"
    mattext.text = xml_safe(body if html else text)


def _safe_name(name: str) -> str:
    # A zip member name from a file name a teacher or Moodle chose: no folders, no oddities.
    cleaned = re.sub(r"[^\w.-]+", "_", name.rsplit("/", 1)[-1]).strip("._")
    return cleaned or "image"


def _xml_bytes(root: ET.Element) -> bytes:
    ET.indent(root, space="  ")
    body: bytes = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    return body


class QtiFormat(Exporter):
    name = "qti"
    title = "QTI 1.2 (Canvas)"
    extension = ".zip"
    order = 50
    description = "QTI 1.2 zip for Canvas Classic Quizzes"

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        seed = int(result.seed or 0)
        quiz_id = _ident("quiz", options.title, seed, *(i.stem for i in items))
        assessment_href = f"{quiz_id}/{quiz_id}.xml"
        files: dict[str, bytes] = {}
        orders = option_orders(items, seed)
        assessment = self._assessment(items, quiz_id, options.title, orders, result, files)
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            manifest = self._manifest(quiz_id, assessment_href, sorted(files))
            archive.writestr("imsmanifest.xml", _xml_bytes(manifest))
            archive.writestr(assessment_href, _xml_bytes(assessment))
            for href, data in sorted(files.items()):
                archive.writestr(href, data)

    @staticmethod
    def _manifest(quiz_id: str, href: str, files: list[str]) -> ET.Element:
        # Namespaces as plain attributes: ET.register_namespace would change global state.
        manifest = ET.Element(
            "manifest",
            {
                "identifier": f"{quiz_id}_manifest",
                "xmlns": CP_NS,
                "xmlns:xsi": XSI_NS,
                "xsi:schemaLocation": f"{CP_NS} {CP_SCHEMA}",
            },
        )
        metadata = ET.SubElement(manifest, "metadata")
        ET.SubElement(metadata, "schema").text = "IMS Content"
        ET.SubElement(metadata, "schemaversion").text = "1.1.3"
        ET.SubElement(manifest, "organizations")
        resources = ET.SubElement(manifest, "resources")
        resource = ET.SubElement(
            resources, "resource", {"identifier": quiz_id, "type": "imsqti_xmlv1p2", "href": href}
        )
        ET.SubElement(resource, "file", {"href": href})
        if files:
            web = ET.SubElement(
                resources,
                "resource",
                {"identifier": f"{quiz_id}_files", "type": "webcontent", "href": files[0]},
            )
            for name in files:
                ET.SubElement(web, "file", {"href": name})
        return manifest

    def _assessment(
        self,
        items: list[Item],
        quiz_id: str,
        title: str,
        orders: OptionOrders,
        result: ExportResult,
        files: dict[str, bytes],
    ) -> ET.Element:
        root = ET.Element(
            "questestinterop",
            {"xmlns": QTI_NS, "xmlns:xsi": XSI_NS, "xsi:schemaLocation": f"{QTI_NS} {QTI_SCHEMA}"},
        )
        assessment = ET.SubElement(root, "assessment", {"ident": quiz_id, "title": xml_safe(title)})
        _meta_fields(assessment, [("cc_maxattempts", "1")])
        section = ET.SubElement(assessment, "section", {"ident": "root_section"})
        names = QuestionNames()
        for number, item in enumerate(items, 1):
            notes: list[str] = []
            element = self._item(item, number, quiz_id, orders, notes, files)
            # Canvas lists questions by title: the stem's start, as Moodle and GIFT get.
            element.set("title", xml_safe(names.name(item, number)))
            section.append(element)
            result.simplified += [Skipped(n, item.id, item.stem) for n in notes]
            result.count += 1
        return root

    def _item(
        self,
        item: Item,
        number: int,
        quiz_id: str,
        orders: OptionOrders,
        notes: list[str],
        files: dict[str, bytes],
    ) -> ET.Element:
        item_id = _ident(quiz_id, number, item.id, item.stem)
        element = ET.Element("item", {"ident": item_id})
        choice = item.type in ("mcq", "tf") and len(item.options) >= 2
        truth = sorted(o.text.strip().casefold() for o in item.options) == ["false", "true"]
        qtype = "numerical_question" if item.numeric is not None else "short_answer_question"
        pictures = ""
        for media in item.media:
            if not media.is_image:
                notes.append(f"{media.name} not written: the QTI export carries images only.")
                continue
            href = f"web_resources/{item_id}/{_safe_name(media.name)}"
            files[href] = media.data
            src = html.escape(href.removeprefix("web_resources/"), quote=True)
            pictures += f'<p><img src="$IMS-CC-FILEBASE$/{src}" alt=""></p>'

        if choice:
            tf = item.type == "tf" and truth
            qtype = "true_false_question" if tf else "multiple_choice_question"
        ordered = orders.of(item) if choice else []
        answer_ids = [str(1000 * number + i) for i in range(len(ordered))]
        metadata = ET.SubElement(element, "itemmetadata")
        fields = [("question_type", qtype), ("points_possible", "1.0")]
        fields.append(("original_answer_ids", ",".join(answer_ids)))
        fields.append(("assessment_question_identifierref", f"{item_id}_aq"))
        _meta_fields(metadata, fields)
        presentation = ET.SubElement(element, "presentation")
        stem = cloze_stem(item.stem) if item.type == "cloze" else item.stem
        _material(presentation, stem, html=True, extra_html=pictures)
        processing = ET.Element("resprocessing")
        outcomes = ET.SubElement(processing, "outcomes")
        ET.SubElement(
            outcomes,
            "decvar",
            {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"},
        )
        condition = ET.SubElement(processing, "respcondition", {"continue": "No"})
        conditionvar = ET.SubElement(condition, "conditionvar")
        if choice:
            response = ET.SubElement(
                presentation, "response_lid", {"ident": "response1", "rcardinality": "Single"}
            )
            render = ET.SubElement(response, "render_choice")
            key_id = ""
            for answer_id, option in zip(answer_ids, ordered, strict=True):
                label = ET.SubElement(render, "response_label", {"ident": answer_id})
                _material(label, option.text, html=False)
                if option.is_key:
                    key_id = answer_id
            ET.SubElement(conditionvar, "varequal", {"respident": "response1"}).text = key_id
            if any(o.credit for o in ordered if not o.is_key):
                notes.append("partial credit of the other options left out (Canvas: key only).")
        elif item.numeric is not None:
            response = ET.SubElement(
                presentation, "response_str", {"ident": "response1", "rcardinality": "Single"}
            )
            render = ET.SubElement(response, "render_fib", {"fibtype": "Decimal"})
            ET.SubElement(render, "response_label", {"ident": "answer1"})
            either = ET.SubElement(conditionvar, "or")
            value, tolerance = item.numeric.value, item.numeric.tolerance
            ET.SubElement(either, "varequal", {"respident": "response1"}).text = format_number(
                value
            )
            both = ET.SubElement(either, "and")
            low, high = format_number(value - tolerance), format_number(value + tolerance)
            ET.SubElement(both, "vargte", {"respident": "response1"}).text = low
            ET.SubElement(both, "varlte", {"respident": "response1"}).text = high
            if item.numeric.unit:
                notes.append(
                    f"unit {quoted(item.numeric.unit)} left out (Canvas numbers have no units)."
                )
        else:
            response = ET.SubElement(
                presentation, "response_str", {"ident": "response1", "rcardinality": "Single"}
            )
            render = ET.SubElement(response, "render_fib")
            ET.SubElement(render, "response_label", {"ident": "answer1", "rshuffle": "No"})
            for text in [item.key, *(a.text for a in item.accepted if a.credit >= 100)]:
                varequal = ET.SubElement(conditionvar, "varequal", {"respident": "response1"})
                varequal.text = xml_safe(text)
            notes += [
                f"accepted answer {quoted(a.text)} ({a.credit:g}%) left out: Canvas short answers "
                "have no partial credit."
                for a in item.accepted
                if a.credit < 100
            ]
        ET.SubElement(condition, "setvar", {"action": "Set", "varname": "SCORE"}).text = "100"
        element.append(processing)
        return element
