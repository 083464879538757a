"""Round four (issue 48): chat templates from GGUF files run within a time and memory budget.

Before: a GGUF whose chat template was `{{ raise_exception('x') }}` ended a whole `score` run
with status 1, nested `range(100000)` loops hung it, and
`{% set s='A'*800000000 %}{% set t=s~s %}` took 4.18 GB while the model loaded. The guard
(providers/chat_template.py, chat_formats.py) is tested on hostile template strings
directly; the fallback to the family's built-in format through the provider with SmolLM2's
template swapped (slow), and through `quizsmith score` with a copy of SmolLM2 whose template
was rewritten in place (slow).
"""

from __future__ import annotations

import json
import shutil
import struct
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from quizsmith.providers import catalog, chat_formats, chat_template, manager
from quizsmith.providers.chat_formats import GuardedChatFormatter, choose_formatter
from quizsmith.providers.chat_template import ChatTemplateError, compile_template, render_messages
from quizsmith.settings import Settings

RAISES = "{{ raise_exception('x') }}"
NESTED_RANGES = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
HUGE_STRING = "{% set s='A'*800000000 %}{% set t=s~s %}{{ t }}"

MESSAGES = [
    {"role": "system", "content": "You write quiz questions about a passage."},
    {"role": "user", "content": "Passage: The library opened in 1963.\nWrite one question."},
]

#: Hostile templates beyond the three reported, each against one of the guard's counts.
MORE_HOSTILE = {
    "doubling by ~": "{% set ns = namespace(s='A'*1000000) %}"
    "{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
    "center filter": "{{ 'x'|center(1000000000) }}",
    "str method": "{{ 'x'.ljust(1000000000) }}",
    "format width": "{{ '%999999999s'|format(1) }}",
    "str.format width": "{{ '{:>999999999}'.format(1) }}",
    "power": "{{ 2 ** 10000000 }}",
    "squaring": "{% set ns = namespace(x=3) %}"
    "{% for i in range(40) %}{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x }}",
    "join of copies": "{% set s='A'*4000000 %}{{ ([s]*1000)|join }}",
    "tojson of copies": "{% set s='A'*4000000 %}{{ ([s]*1000)|tojson }}",
    "printed list": "{% set s='A'*4000000 %}{{ [s]*1000 }}",
    "indent": "{% set s='\\n'*1000000 %}{{ s|indent(1000) }}",
    "replace": "{% set s='a'*1000000 %}{{ s|replace('a', 'b' * 40) }}",
    "block set": "{% set x %}{% for i in range(100000) %}"
    + "A" * 10000
    + "{% endfor %}{% endset %}{{ x|length }}",
    "output loop": "{% set s='A'*1000000 %}{% for i in range(100000) %}{{ s }}{% endfor %}",
    "loop over characters": "{% set s='a'*4000000 %}{% for c in s %}{% for d in s %}"
    "{% endfor %}{% endfor %}",
    "macro recursion": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "syntax error": "{% for %}",
    "include": "{% include 'x' %}",
    "huge template": "{# " + "x" * 300_000 + " #}",
}


def _render(template: str) -> tuple[str | None, str, float, int]:
    """(output or None, the error's message, seconds, peak bytes traced)."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        out: str | None = render_messages(compile_template(template), MESSAGES)
        error = ""
    except ChatTemplateError as exc:
        out, error = None, exc.message
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, error, seconds, peak


@pytest.mark.parametrize(
    ("template", "why"),
    [
        (RAISES, "raised an error: x"),
        (NESTED_RANGES, "more than"),  # steps or seconds, whichever comes first
        (HUGE_STRING, "800,000,000 characters"),
    ],
    ids=["raise_exception", "nested ranges", "800 MB string"],
)
def test_the_reported_templates_fail_within_their_budget(template: str, why: str) -> None:
    out, error, seconds, peak = _render(template)
    assert out is None and why in error
    assert seconds < chat_template.TIME_BUDGET_S + 2.0
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB traced"


@pytest.mark.parametrize("name", list(MORE_HOSTILE))
def test_hostile_templates_fail_within_their_budget(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The time budget itself is the reported case's; here a shorter one keeps the test quick.
    monkeypatch.setattr(chat_template, "TIME_BUDGET_S", 0.5)
    out, error, seconds, peak = _render(MORE_HOSTILE[name])
    assert out is None and error, f"{name} rendered {str(out)[:80]!r}"
    assert seconds < 3.0
    assert peak < 64 * 2**20, f"{name}: {peak / 2**20:.0f} MB traced"


def test_ordinary_template_features_still_render() -> None:
    template = (
        "{% for m in messages %}{% if loop.first %}[{{ loop.length }}]{% endif %}"
        "{{ m['role'] ~ ':' ~ m.content|trim }}{% if not loop.last %}|{% endif %}{% endfor %}"
        "{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + i %}"
        "{% endfor %}{{ ns.n }}{{ '%s-%d'|format('a', 2) }}{{ messages|map(attribute='role')"
        "|join(',') }}{{ [1, 2]|tojson }}{{ 'ab' * 2 }}{{ 2 ** 8 }}{{ 'x{}'.format(1) }}"
        "{% if add_generation_prompt %}<gen>{% endif %}"
    )
    out = render_messages(compile_template(template), MESSAGES)
    assert out.startswith("[2]system:You write quiz questions about a passage.|user:Passage")
    assert out.endswith("3a-2system,user[1, 2]abab256x1<gen>")


def _gguf_template(path: Path) -> str | None:
    """The `tokenizer.chat_template` string of a GGUF file, found in its header's bytes."""
    with path.open("rb") as f:
        head = f.read(32 << 20)
    key = b"tokenizer.chat_template"
    at = head.find(struct.pack("<Q", len(key)) + key)
    if at < 0:
        return None
    at += 8 + len(key)
    assert struct.unpack_from("<I", head, at)[0] == 8  # a string
    length = struct.unpack_from("<Q", head, at + 4)[0]
    return head[at + 12 : at + 12 + length].decode("utf-8")


def _bundled_templates() -> dict[str, str]:
    found = {}
    for model in catalog.load_catalog():
        if model.backend != "llamacpp" or not catalog.is_installed(model):
            continue
        try:
            path = catalog.locate(model, assemble=False)
        except Exception:  # not assembled here: nothing to compare
            continue
        template = _gguf_template(path)
        if template:
            found[model.id] = template
    return found


def test_the_bundled_templates_render_exactly_as_llama_cpp_renders_them() -> None:
    """The guard changes no prompt: SmolLM2's and (where assembled) Qwen's templates give
    the same text, stop words and flags through both formatters."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    templates = _bundled_templates()
    assert "smollm2-135m-instruct" in templates
    conversations = [
        MESSAGES,
        [{"role": "user", "content": "A passage with <|im_start|>system and {{ braces }}."}],
        [
            *MESSAGES,
            {"role": "assistant", "content": "When?"},
            {"role": "user", "content": "Again"},
        ],
    ]
    for model_id, template in templates.items():
        for messages in conversations:
            theirs = Jinja2ChatFormatter(template=template, eos_token="</s>", bos_token="<s>")
            ours = GuardedChatFormatter(template=template, eos_token="</s>", bos_token="<s>")
            a, b = theirs(messages=messages), ours(messages=messages)
            assert (a.prompt, a.stop, a.added_special) == (b.prompt, b.stop, b.added_special), (
                model_id
            )


def test_loading_a_model_never_compiles_its_template_unguarded() -> None:
    """Llama() builds a formatter for every template in the file's metadata; while a model
    loads here that formatter is the guarded one, which compiles when first used."""
    from llama_cpp import llama_chat_format

    original = llama_chat_format.Jinja2ChatFormatter
    tracemalloc.start()
    with chat_formats.gguf_templates_guarded():
        formatter = llama_chat_format.Jinja2ChatFormatter(
            template=HUGE_STRING, eos_token="</s>", bos_token="<s>", stop_token_ids=[2]
        )
        handler = formatter.to_chat_handler()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert isinstance(formatter, GuardedChatFormatter) and callable(handler)
    assert llama_chat_format.Jinja2ChatFormatter is original
    assert peak < 16 * 2**20
    with pytest.raises(ChatTemplateError, match="800,000,000"):
        formatter(messages=MESSAGES)


def _choose(template: str, architecture: str, tokens: tuple[str, ...] = ()) -> Any:
    return choose_formatter(
        template,
        eos_token="</s>",
        bos_token="<s>",
        stop_token_ids=[2],
        architecture=architecture,
        has_token=lambda text: text in tokens,
        file_name="hostile.gguf",
    )


@pytest.mark.parametrize(
    "template", [RAISES, NESTED_RANGES, HUGE_STRING], ids=["raise", "loops", "memory"]
)
def test_a_template_that_fails_gives_way_to_the_family_format(template: str) -> None:
    qwen = _choose(template, "qwen2")
    assert qwen.name == "chatml"
    assert "hostile.gguf" in qwen.note and "'chatml'" in qwen.note
    prompt = qwen.formatter(messages=MESSAGES).prompt
    assert prompt.startswith("<|im_start|>system\nYou write quiz questions")
    assert prompt.endswith("<|im_start|>assistant\n")
    # SmolLM2's architecture is "llama"; its vocabulary has ChatML's tokens.
    assert _choose(template, "llama", ("<|im_start|>",)).name == "chatml"
    assert _choose(template, "llama", ("<|start_header_id|>",)).name == "llama-3"
    gemma = _choose(template, "gemma3")
    assert gemma.name == "gemma"
    # Gemma has no system turn: the instructions lead the first user turn, not dropped.
    text = gemma.formatter(messages=MESSAGES).prompt
    assert text.startswith("<start_of_turn>user\nYou write quiz questions")
    assert "Write one question.<end_of_turn>\n<start_of_turn>model\n" in text
    unknown = _choose(template, "mystery")
    assert unknown.formatter is None and "prompted as a base model" in unknown.note


def test_a_template_that_works_is_kept() -> None:
    good = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}<assistant>"
    choice = _choose(good, "qwen2")
    assert choice.name == "gguf" and not choice.note
    assert choice.formatter(messages=MESSAGES).prompt.endswith("Write one question.<assistant>")
    assert _choose("", "qwen2").formatter is None  # no template at all: a base model


# -- through the provider (slow: SmolLM2 loads) ----------------------------------------------
def _smollm2() -> Path:
    return catalog.locate({m.id: m for m in catalog.load_catalog()}["smollm2-135m-instruct"])


@pytest.fixture
def file_template(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make the next model loaded report `template` as its file's chat template."""
    import llama_cpp

    from quizsmith.providers import llamacpp_models

    def use(template: str) -> None:
        real = llama_cpp.Llama

        class WithTemplate(real):  # type: ignore[misc,valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.metadata = {**self.metadata, "tokenizer.chat_template": template}

        monkeypatch.setattr(llama_cpp, "Llama", WithTemplate)

    yield use
    llamacpp_models.unload_all()


@pytest.mark.slow
@pytest.mark.parametrize(
    "template", [RAISES, NESTED_RANGES, HUGE_STRING], ids=["raise", "loops", "memory"]
)
def test_the_provider_answers_with_chatml_when_the_file_template_fails(
    file_template: Any, template: str
) -> None:
    from quizsmith.providers.llamacpp import LlamaCppProvider
    from quizsmith.providers.llamacpp_models import unload_all

    path = _smollm2()
    provider = LlamaCppProvider(path, chat=True, n_ctx=512, n_threads=1)
    own = provider.chat_prompt_tokens(MESSAGES)
    unload_all()
    file_template(template)
    provider = LlamaCppProvider(path, chat=True, n_ctx=512, n_threads=1)
    started = time.perf_counter()
    result = provider.chat(MESSAGES, max_tokens=24)
    assert time.perf_counter() - started < 30
    assert result.text.strip()
    assert "cannot be used" in provider.chat_template_note
    assert "'chatml'" in provider.chat_template_note
    # With a system turn, SmolLM2's own template is ChatML: the same tokens.
    assert provider.chat_prompt_tokens(MESSAGES) == own


@pytest.mark.slow
def test_a_template_that_fails_only_on_some_messages_gives_way_when_it_does(
    file_template: Any,
) -> None:
    """The render at load passes; a later conversation makes the template raise: that call
    and every later one use the family's format, and the answer still comes."""
    from quizsmith.providers.llamacpp import LlamaCppProvider

    file_template(
        "{% for m in messages %}{% if 'BOOM' in m.content %}{{ raise_exception('boom') }}"
        "{% endif %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
        "<|im_start|>assistant\n"
    )
    provider = LlamaCppProvider(_smollm2(), chat=True, n_ctx=512, n_threads=1)
    assert provider.chat(MESSAGES, max_tokens=8).text is not None
    assert provider.chat_template_note == ""
    boom = [MESSAGES[0], {"role": "user", "content": "BOOM. When did the library open?"}]
    assert provider.chat(boom, max_tokens=16).text.strip()
    assert "boom" in provider.chat_template_note and "'chatml'" in provider.chat_template_note


def _hostile_copy(folder: Path, template: str) -> Path:
    """A copy of SmolLM2 whose chat template is `template`, padded with a Jinja comment to
    the original's length so that it is rewritten in place (no offset moves)."""
    source = _smollm2()
    own = _gguf_template(source)
    assert own is not None
    padding = len(own.encode()) - len(template.encode()) - 4
    assert padding >= 0
    hostile = (template + "{#" + " " * padding + "#}").encode()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "hostile.gguf"
    shutil.copyfile(source, target)
    with target.open("r+b") as f:
        head = f.read(32 << 20)
        at = head.find(own.encode())
        f.seek(at)
        f.write(hostile)
    return target


@pytest.mark.slow
def test_score_with_a_raising_template_scores_instead_of_ending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: `quizsmith score` ended with status 1 ("Unexpected error") on the first chat
    prompt. Now the file's model answers through ChatML and the item is scored."""
    from quizsmith.cli import main
    from quizsmith.settings import save

    folder = tmp_path / "models"
    _hostile_copy(folder, RAISES)
    settings = Settings(model_dirs=[str(folder)], n_threads=1)
    for role in ("qa", "generator"):
        settings.roles[role] = "gguf:hostile"
    settings.roles["judges"] = ["gguf:hostile"]
    save(settings)
    passage = "The Hesburgh Library at the University of Notre Dame was completed in 1963."
    items = tmp_path / "items.jsonl"
    row = {"type": "short", "question": "When was the library completed?", "answer": "1963"}
    items.write_text(json.dumps({**row, "passage": passage}) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    try:
        code = main(["score", str(items), "--metrics", "naco", "--out", str(out)])
    finally:
        manager.close_all()
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert "Unexpected error" not in captured.err
    scored = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert scored["scores"]["naco"]["value"] is not None
    # The file's model did answer a chat prompt (NACo's verdict), through ChatML.
    from quizsmith import logs, paths

    log = (paths.log_dir() / logs.LOG_FILE).read_text(encoding="utf-8")
    assert "The chat template in hostile.gguf cannot be used" in log
