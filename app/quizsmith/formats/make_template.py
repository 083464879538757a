"""Build `resources/templates/quiz-template.docx`, the Word template the exports start from.

Run once (`python -m quizsmith.formats.make_template`) and commit the file. A school replaces
it (or passes `--template`) with its own .docx: the exports keep the template's page set-up,
headers, footers and styles, replace its body, and use these paragraph styles when the
template defines them (otherwise Word's built-in ones):

  Quiz Title, Quiz Instructions, Quiz Question, Quiz Option, Quiz Answer Line, Quiz Note
"""

from __future__ import annotations

import sys
from pathlib import Path

from quizsmith.paths import resources_dir

#: style name -> (base style, font size pt, bold, space before pt, space after pt, left indent cm)
STYLES: dict[str, tuple[str, float, bool, float, float, float]] = {
    "Quiz Title": ("Title", 20, True, 0, 6, 0),
    "Quiz Instructions": ("Normal", 10, False, 0, 12, 0),
    "Quiz Question": ("Normal", 11, True, 10, 3, 0),
    "Quiz Option": ("Normal", 11, False, 0, 1, 0.75),
    "Quiz Answer Line": ("Normal", 11, False, 6, 0, 0.75),
    "Quiz Note": ("Normal", 9, False, 0, 2, 0.75),
}


def template_path() -> Path:
    return resources_dir() / "templates" / "quiz-template.docx"


def build(path: Path) -> Path:
    from docx import Document
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Cm, Pt

    doc = Document()
    normal = doc.styles["Normal"]
    normal.font.name = "Calibri"
    normal.font.size = Pt(11)
    for section in doc.sections:
        section.page_height, section.page_width = Cm(29.7), Cm(21.0)  # A4
        section.top_margin = section.bottom_margin = Cm(2.0)
        section.left_margin = section.right_margin = Cm(2.2)
        section.header_distance = section.footer_distance = Cm(1.0)
    for name, (base, size, bold, before, after, indent) in STYLES.items():
        style = doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
        style.base_style = doc.styles[base]
        style.quick_style = True
        style.font.size = Pt(size)
        style.font.bold = bold
        fmt = style.paragraph_format
        fmt.space_before, fmt.space_after = Pt(before), Pt(after)
        if indent:
            fmt.left_indent = Cm(indent)
        if name == "Quiz Question":
            fmt.keep_with_next = True
    doc.core_properties.title = "Quizsmith quiz template"
    doc.core_properties.author = "Quizsmith"
    # The body of the default document is empty; exports add the content.
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path))
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else template_path()
    print(build(target))
