"""The bundled GGUF models load and answer through the llama.cpp provider."""

from __future__ import annotations

import math
import threading

import pytest

from quizsmith.errors import OutputParseError, ProviderError
from quizsmith.providers import Message, provider_for
from quizsmith.settings import Settings

pytestmark = pytest.mark.slow

PASSAGE = (
    "The Nile is the longest river in Africa. It flows north for about 6,650 kilometres "
    "and empties into the Mediterranean Sea. The Aswan High Dam, completed in 1970, "
    "controls its annual flood. "
)
MCQ_OPTIONS = [" the Mediterranean Sea", " the Red Sea", " the Atlantic Ocean", " Lake Victoria"]


def _passage_of_tokens(provider, n_tokens: int) -> str:
    text = PASSAGE
    while provider.count_tokens(text) < n_tokens:
        text += PASSAGE
    return text


def test_instruct_model_answers_a_chat(smollm) -> None:
    result = smollm.chat(
        [Message("user", "What is the capital of France? Answer in one word.")], max_tokens=16
    )
    assert "paris" in result.text.lower()
    assert result.prompt_tokens > 0 and 0 < result.completion_tokens <= 16
    assert result.model == "smollm2-135m-instruct"


def test_base_model_completes_text(gemma) -> None:
    assert not gemma.is_chat_model  # base Gemma: no chat template, few-shot prompts
    result = gemma.complete("Monday, Tuesday, Wednesday,", max_tokens=4)
    assert result.text.strip().lower().startswith("thursday")


def test_json_schema_output_parses_on_the_135m_model(smollm) -> None:
    schema = {
        "type": "object",
        "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
        "required": ["question", "answer"],
    }
    for seed in (1, 2, 3):
        result = smollm.chat(
            [Message("user", f"Text: {PASSAGE}\nWrite a quiz question and its answer as JSON.")],
            max_tokens=200,
            temperature=0.7,
            seed=seed,
            json_schema=schema,
        )
        assert isinstance(result.data, dict)
        assert set(result.data) == {"question", "answer"}
        assert all(isinstance(v, str) for v in result.data.values())


def test_cut_off_json_is_a_parse_error_not_a_crash(smollm) -> None:
    schema = {"type": "object", "properties": {"essay": {"type": "string"}}, "required": ["essay"]}
    with pytest.raises(OutputParseError, match="cut off"):
        smollm.chat(
            [Message("user", "Write a long essay about rivers.")], max_tokens=5, json_schema=schema
        )


@pytest.mark.parametrize("fixture", ["smollm", "gemma"])
def test_option_logprobs_with_kv_reuse_equal_from_scratch(fixture, request) -> None:
    provider = request.getfixturevalue(fixture)
    prefix = _passage_of_tokens(provider, 300) + "\nQuestion: Where does the Nile end?\nAnswer:"
    reused = provider.option_logprobs(prefix, MCQ_OPTIONS)
    scratch = provider.option_logprobs(prefix, MCQ_OPTIONS, strategy="scratch")
    single = provider.option_logprobs(prefix, MCQ_OPTIONS, strategy="single-pass")
    for a, b, c in zip(reused, scratch, single, strict=True):
        assert a.option == b.option and a.n_tokens == b.n_tokens >= 1
        assert abs(a.total - b.total) < 1e-4
        assert abs(a.mean - b.mean) < 1e-4
        assert a.total < 0 and math.isclose(a.mean, a.total / a.n_tokens)
        # One batch for prefix+option runs other CPU kernels: close, not bit-identical
        # (measured: 0 on SmolLM2 Q4_1, up to 0.066 nats on Gemma 3 Q4_K_M; llama-cpp-python's
        # own Llama.eval shows the same split-versus-single difference).
        assert abs(a.total - c.total) < 0.15
    # The passage says it: the right option must be the most likely one.
    best = max(reused, key=lambda o: o.mean)
    assert best.option == " the Mediterranean Sea"


def test_option_logprobs_reuse_does_not_disturb_later_generation(smollm) -> None:
    question = [Message("user", "What is the capital of France? Answer in one word.")]
    before = smollm.chat(question, max_tokens=12).text
    smollm.option_logprobs(PASSAGE + "Answer:", MCQ_OPTIONS)
    smollm._get().memo.clear()  # generate again rather than repeat the remembered answer
    after = smollm.chat(question, max_tokens=12).text
    assert before == after


def test_token_merged_across_the_boundary_is_scored_as_part_of_the_option(smollm) -> None:
    # "Answer: " + "Paris" tokenises differently from "Answer:" + " Paris"; both paths must agree.
    prefix = "The capital of France is Paris.\nAnswer: "
    reused = smollm.option_logprobs(prefix, ["Paris", "Rome"])
    scratch = smollm.option_logprobs(prefix, ["Paris", "Rome"], strategy="scratch")
    for a, b in zip(reused, scratch, strict=True):
        assert abs(a.total - b.total) < 1e-4


def test_empty_option_and_too_long_prefix_are_clear_errors(smollm) -> None:
    with pytest.raises(ProviderError, match="empty"):
        smollm.option_logprobs("Answer:", [" yes", ""])
    huge = PASSAGE * 400  # far beyond the 4096-token context
    with pytest.raises(ProviderError, match="context"):
        smollm.option_logprobs(huge, [" yes"])
    with pytest.raises(ProviderError, match="context"):
        smollm.complete(huge, max_tokens=8)


def test_one_shared_instance_per_model_and_thread_safe_use(smollm) -> None:
    again = provider_for("smollm2-135m-instruct", Settings())
    assert again is smollm
    from quizsmith.providers.llamacpp import LlamaCppProvider

    # Two provider objects for the same file and settings (e.g. "gguf:" and a path) share
    # one loaded model; only a different context size or thread count loads another.
    twin = LlamaCppProvider(smollm.model_path, n_ctx=smollm.n_ctx, n_threads=smollm.n_threads)
    assert twin._get() is smollm._get()

    errors: list[BaseException] = []
    results: list[float] = []

    def worker() -> None:
        try:
            res = smollm.option_logprobs(PASSAGE + "Answer:", MCQ_OPTIONS[:2])
            results.append(res[0].total)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert max(results) - min(results) < 1e-4  # the lock serialises; every thread sees the same


def test_user_gguf_in_models_folder_is_a_drop_in(tmp_path, monkeypatch) -> None:
    """Any GGUF placed in the models folder works for chat and scoring, like a bundled one."""
    import shutil

    from quizsmith import paths
    from quizsmith.providers import catalog

    bundled = catalog.locate(catalog.find("smollm2-135m-instruct", catalog.load_catalog()))
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(paths.models_dir() / "catalog.toml", folder / "catalog.toml")
    (folder / "my-model.gguf").symlink_to(bundled)
    monkeypatch.setenv("QUIZSMITH_MODELS_DIR", str(folder))
    provider = provider_for("gguf:my-model", Settings())
    assert provider.info.model == "gguf:my-model"
    assert provider.is_chat_model  # detected from the file's own chat template
    assert provider.chat([Message("user", "Say hello.")], max_tokens=8).text.strip()
    assert provider.option_logprobs("Hello", [" world"])[0].n_tokens >= 1


def test_option_logprobs_match_llama_cpp_python_own_evaluation(smollm) -> None:
    """An independent reference: llama-cpp-python's high-level eval with logits_all."""
    import numpy as np
    from llama_cpp import Llama

    prefix = PASSAGE + "Question: Where does the Nile end?\nAnswer:"
    ours = smollm.option_logprobs(prefix, MCQ_OPTIONS[:2])
    llm = Llama(model_path=str(smollm.model_path), n_ctx=1024, logits_all=True, verbose=False)
    try:
        for result in ours:
            pre = llm.tokenize(prefix.encode(), add_bos=True, special=False)
            full = llm.tokenize((prefix + result.option).encode(), add_bos=True, special=False)
            assert full[: len(pre)] == pre
            llm.reset()
            llm.eval(pre)
            llm.eval(full[len(pre) :])
            scores = np.asarray(llm.scores[: len(full)], dtype=np.float64)
            total = 0.0
            for i in range(len(pre), len(full)):
                row = scores[i - 1]
                total += row[full[i]] - row.max() - np.log(np.exp(row - row.max()).sum())
            assert abs(total - result.total) < 1e-4
    finally:
        llm.close()


@pytest.mark.slow
def test_a_provider_that_outlives_unload_all_loads_its_model_again() -> None:
    """unload_all frees every llama.cpp context (CLI and GUI shutdown, tests); a provider
    still held by a caller must load the model again, not touch freed memory (a segfault)."""
    from quizsmith.providers import provider_for
    from quizsmith.providers.llamacpp_models import unload_all
    from quizsmith.settings import Settings

    provider = provider_for("smollm2-135m-instruct", Settings())
    first = provider.option_logprobs("The capital of France is", [" Paris"])
    unload_all()
    again = provider.option_logprobs("The capital of France is", [" Paris"])
    assert again[0].total == first[0].total


def _resident_kib_of(path: str) -> int:
    """Resident KiB of this process's mappings of the file (0: not mapped)."""
    total, inside = 0, False
    with open("/proc/self/smaps", encoding="utf-8") as smaps:
        for line in smaps:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                inside = len(head) >= 6 and head[-1] == path
            elif inside and head[:1] == ["Rss:"]:
                total += int(head[1])
    return total


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/smaps"), reason="Linux only")
def test_a_loaded_model_does_not_keep_its_file_resident(gemma) -> None:
    # The weights are read into memory (use_mmap=False): with a mapping, the file's pages
    # llama.cpp read to repack the weights stayed resident beside the repacked copy.
    gemma.complete("The Nile flows into", max_tokens=2)
    assert _resident_kib_of(str(gemma.model_path.resolve())) == 0
