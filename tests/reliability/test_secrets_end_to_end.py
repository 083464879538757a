"""The API key through a whole working session: stored in a keyring, used by the `openai`
provider against a real llama.cpp server on 127.0.0.1 for generation and scoring, then
every export format written; the key must be in none of the files the app wrote (bank,
settings, logs, crash logs, exports)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from quizsmith import secrets
from quizsmith import settings as settings_mod
from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.providers import catalog, manager
from quizsmith.settings import Endpoint
from support.llama_server import llama_server

from .conftest import KEY, files_holding_key

pytestmark = pytest.mark.slow

PASSAGE = (
    "The Hesburgh Library at the University of Notre Dame was completed in 1963. It is the "
    "third building to house the main collection of books. The front of the library is "
    "adorned with the Word of Life mural, designed by the artist Millard Sheets. The "
    "university library system holds more than 3 million volumes in ten libraries."
)
EXPORTS = {"docx": "quiz.docx", "moodle": "quiz.xml", "gift": "quiz.gift", "csv": "quiz.csv",
           "jsonl": "bank.jsonl"}  # fmt: skip


def test_the_key_is_used_and_written_nowhere(
    key_in_keyring: Path,
    log_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = catalog.locate(catalog.find("smollm2-135m-instruct", catalog.load_catalog()))
    passage = tmp_path / "library.txt"
    passage.write_text(PASSAGE, encoding="utf-8")
    bank_path = tmp_path / "quiz.qbank"
    out_dir = tmp_path / "exports"
    out_dir.mkdir()
    with llama_server(model, alias="smollm2") as base_url:
        s = settings_mod.Settings(n_threads=1)
        s.endpoints["school"] = Endpoint(
            name="school", base_url=base_url, model="smollm2", key_name="school-server",
            timeout_s=120, max_retries=1, max_concurrency=1,
        )  # fmt: skip
        # Generation and the NACo qa model go through the API endpoint; the rest stays local.
        s.roles["generator"] = "endpoint:school"
        s.roles["qa"] = "endpoint:school"
        # A 135M model behind the endpoint: the few-shot prompts it can follow, as the
        # settings' per-model profile override gives them (an API model is "chat" otherwise,
        # and a chat generator gets no rule-made question to fall back on).
        s.metrics["profiles"] = {"smollm2": "fewshot"}
        settings_path = settings_mod.save(s)
        try:
            # Two candidates per fact: the model's question (via the API) and the rule-made
            # one, so items are made either way.
            # One item: the point is where the key goes, not how many items a 135M model
            # writes (the rule-made question cannot ask for every answer the analysis finds).
            code = main(["generate", str(passage), "-n", "1", "--bank", str(bank_path),
                         "--no-rank", "--candidates", "2", "--types", "short"])  # fmt: skip
            assert code == 0, capsys.readouterr()
            assert main(["score", "--bank", str(bank_path), "--metrics", "naco"]) == 0
        finally:
            manager.close_all()
    assert KEY in secrets.known_secrets()  # the provider really fetched the key from keyring
    with ItemBank(bank_path, create=False) as bank:
        items = bank.search(limit=None)
        assert items and all(i.provenance for i in items)
        assert "smollm2" in str(items[0].provenance) or "school" in str(items[0].provenance)
        assert all(bank.score_history(i.id, "naco") for i in items)  # type: ignore[arg-type]
    for fmt, name in EXPORTS.items():
        args = ["export", "--bank", str(bank_path), "--format", fmt, "--out", str(out_dir / name)]
        assert main([*args, *([] if fmt == "jsonl" else ["--status", "all"])]) == 0
        assert (out_dir / name).stat().st_size > 0
    # A crash with the key in its message (e.g. a library quoting a header) is logged masked.
    from quizsmith.crash import write_crash_log

    crash = write_crash_log(RuntimeError(f"request failed with Authorization: Bearer {KEY}"))
    logging.getLogger("quizsmith.test").warning("a record quoting the key %s", KEY)
    for handler in logging.getLogger().handlers:
        handler.flush()

    out, err = capsys.readouterr()
    assert KEY not in out + err
    written = [bank_path, *bank_path.parent.glob("quiz.qbank-*"), settings_path, out_dir,
               log_file.parent, crash]  # fmt: skip
    assert crash.parent == log_file.parent and "***" in crash.read_text(encoding="utf-8")
    assert files_holding_key(*written) == []
    # The search finds a key where one is, in a plain file and inside a .docx.
    import docx

    control = tmp_path / "control"
    control.mkdir()
    (control / "plain.txt").write_text(f"key={KEY}", encoding="utf-8")
    document = docx.Document()
    document.add_paragraph(KEY)
    document.save(str(control / "leak.docx"))
    assert len(files_holding_key(control)) == 2
