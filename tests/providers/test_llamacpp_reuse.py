"""Kept prompt prefixes (providers/llamacpp_state.py): a call whose passage was evaluated
before gives exactly (bit for bit) what it gives from an empty cache, and calls that name no
prefix do not depend on the call before them."""

from __future__ import annotations

import pytest

from quizsmith.errors import ProviderError
from quizsmith.providers import Message, llamacpp_scoring
from quizsmith.providers.llamacpp_models import forget_kept_state

pytestmark = pytest.mark.slow

INSTRUCTIONS = "Read the passage and answer the question with a few words from it.\n\n"
PASSAGE = (
    "Passage: The Nile is the longest river in Africa. It flows north for about 6,650 "
    "kilometres and empties into the Mediterranean Sea. The Aswan High Dam, completed in "
    "1970, controls its annual flood. Its two main branches, the White Nile and the Blue "
    "Nile, meet at Khartoum in Sudan.\n"
)
QUESTIONS = [
    "Where does the Nile end?",
    "Where do the two branches meet?",
    "When was the dam built?",
]
OPTIONS = [" the Mediterranean Sea", " the Red Sea", " Khartoum", " 1970"]


def prompt(question: str) -> str:
    return f"{INSTRUCTIONS}{PASSAGE}Question: {question}\nAnswer:"


READING = (INSTRUCTIONS, INSTRUCTIONS + PASSAGE)


@pytest.mark.parametrize("fixture", ["smollm", "gemma"])
def test_completion_with_a_kept_passage_equals_a_cold_one(fixture, request) -> None:
    provider = request.getfixturevalue(fixture)
    cold = {}
    for q in QUESTIONS:
        forget_kept_state()
        cold[q] = provider.complete(prompt(q), max_tokens=24, reuse_prefix=READING)
    loaded = provider._get()
    assert loaded.live is not None and len(loaded.live[1]) == 2, "both pieces were cut"
    # Warm: the passage is in the cache (live), or restored from a kept state after another
    # prompt replaced it; the remembered answers are dropped so that the model runs again.
    for q in QUESTIONS:
        loaded.memo.clear()
        warm = provider.complete(prompt(q), max_tokens=24, reuse_prefix=READING)
        assert warm.text == cold[q].text
        provider.complete("Unrelated text that empties the cache.", max_tokens=4)
        loaded.memo.clear()
        restored = provider.complete(prompt(q), max_tokens=24, reuse_prefix=READING)
        assert restored.text == cold[q].text
    assert len(loaded.states) >= 2


def test_chat_keeps_the_passage_inside_the_template(smollm) -> None:
    forget_kept_state()
    messages = [Message("user", prompt(QUESTIONS[0]))]
    cold = smollm.chat(messages, max_tokens=24, reuse_prefix=READING)
    loaded = smollm._get()
    assert loaded.live is not None
    _tokens, cuts = loaded.live
    # The template's own header comes first, so the second cut is past the whole passage.
    assert len(cuts) == 2 and cuts[1] > smollm.count_tokens(INSTRUCTIONS + PASSAGE) - 2
    smollm.complete("Unrelated.", max_tokens=2)
    loaded.memo.clear()
    assert smollm.chat(messages, max_tokens=24, reuse_prefix=READING).text == cold.text


def test_answers_do_not_depend_on_the_call_before(gemma) -> None:
    # Without named prefixes every call starts from an empty cache: llama-cpp-python's own
    # prefix matching would evaluate the same prompt in other batches after another call.
    forget_kept_state()
    alone = gemma.complete(prompt(QUESTIONS[1]), max_tokens=24).text
    gemma.complete(prompt(QUESTIONS[0]), max_tokens=24)
    gemma._get().memo.clear()
    assert gemma.complete(prompt(QUESTIONS[1]), max_tokens=24).text == alone


@pytest.mark.parametrize("fixture", ["smollm", "gemma"])
def test_option_scores_with_kept_reading_equal_from_scratch(fixture, request) -> None:
    provider = request.getfixturevalue(fixture)
    forget_kept_state()
    text = prompt(QUESTIONS[0])
    cold = provider.option_logprobs(text, OPTIONS, reuse_prefix=READING)
    scratch = provider.option_logprobs(text, OPTIONS, strategy="scratch", reuse_prefix=READING)
    warm = provider.option_logprobs(text, OPTIONS, reuse_prefix=READING)
    provider.complete("Unrelated.", max_tokens=2)
    restored = provider.option_logprobs(text, OPTIONS, reuse_prefix=READING)
    for a, b, c, d in zip(cold, scratch, warm, restored, strict=True):
        assert a.token_logprobs == b.token_logprobs == c.token_logprobs == d.token_logprobs
    assert all(o.total < 0 for o in cold)


@pytest.mark.parametrize("fixture", ["smollm", "gemma"])
def test_an_edited_option_set_decodes_only_the_new_option(fixture, request, monkeypatch) -> None:
    provider = request.getfixturevalue(fixture)
    text = prompt(QUESTIONS[0])
    forget_kept_state()
    cold = {o.option: o.token_logprobs for o in provider.option_logprobs(text, OPTIONS)}
    # The same options in another order, from a cold start: the same numbers, bit for bit.
    forget_kept_state()
    reordered = provider.option_logprobs(text, OPTIONS[::-1])
    assert all(o.token_logprobs == cold[o.option] for o in reordered)
    decoded: list[int] = []
    real = llamacpp_scoring.score_with_shared_prefix

    def counting(loaded, fulls, *args, **kwargs):
        decoded.append(len(fulls))
        return real(loaded, fulls, *args, **kwargs)

    monkeypatch.setattr(llamacpp_scoring, "score_with_shared_prefix", counting)
    edited = [*OPTIONS[:3], " the Nile delta"]  # a distractor replaced
    warm = provider.option_logprobs(text, edited)
    assert decoded == [1], "only the new option is decoded"
    assert all(o.token_logprobs == cold[o.option] for o in warm[:3])
    scratch = provider.option_logprobs(text, edited, strategy="scratch")
    for a, b in zip(warm, scratch, strict=True):
        assert a.token_logprobs == b.token_logprobs


def test_remembered_answer_only_for_deterministic_calls(gemma) -> None:
    forget_kept_state()
    first = gemma.complete(prompt(QUESTIONS[2]), max_tokens=16)
    again = gemma.complete(prompt(QUESTIONS[2]), max_tokens=16)
    assert again.text == first.text and len(gemma._get().memo) == 1
    gemma.complete(prompt(QUESTIONS[2]), max_tokens=16, temperature=0.7)  # unseeded sampling
    assert len(gemma._get().memo) == 1
    gemma.complete(prompt(QUESTIONS[2]), max_tokens=16, temperature=0.7, seed=3)
    assert len(gemma._get().memo) == 2


def test_empty_prompt_is_a_clear_error(smollm) -> None:
    # SmolLM2 adds no BOS token: an empty text is no tokens at all, which llama-cpp-python
    # would answer with a bare AssertionError.
    with pytest.raises(ProviderError, match="empty"):
        smollm.complete("", max_tokens=4)


def test_remembered_json_answer_is_a_copy(smollm) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    messages = [Message("user", "Reply with JSON: is water wet?")]
    first = smollm.chat(messages, max_tokens=24, json_schema=schema)
    first.data["changed"] = True
    again = smollm.chat(messages, max_tokens=24, json_schema=schema)
    assert "changed" not in again.data and again.text == first.text


def reader_chat(question: str) -> list[Message]:
    return [
        Message("system", "Answer with the shortest phrase from the passage."),
        Message("user", f"{PASSAGE}\nQuestion: {question}"),
    ]


def test_a_scored_reply_reuses_the_passage_the_chat_read(smollm, monkeypatch) -> None:
    """reply_logprobs evaluates the prompt `chat` evaluates, cut where `chat` cuts it: after
    a chat about the passage only the question and the replies are read again, and the
    numbers equal those of a cold start bit for bit."""
    forget_kept_state()
    messages = reader_chat(QUESTIONS[0])
    replies = ["the Mediterranean Sea", "Khartoum"]
    cold = smollm.reply_logprobs(messages, replies, reuse_prefix=PASSAGE)
    forget_kept_state()
    smollm.chat(reader_chat(QUESTIONS[1]), max_tokens=8, reuse_prefix=PASSAGE)
    loaded = smollm._get()
    evaluated: list[int] = []
    real_eval = loaded.llm.eval

    def counting(tokens):
        evaluated.append(len(tokens))
        return real_eval(tokens)

    monkeypatch.setattr(loaded.llm, "eval", counting)
    warm = smollm.reply_logprobs(messages, replies, reuse_prefix=PASSAGE)
    assert evaluated == [], "the passage's state was not evaluated again"
    for a, b in zip(cold, warm, strict=True):
        assert a.token_logprobs == b.token_logprobs
    # Each reply's own tokens, as plain text after the template's assistant header.
    lengths = [smollm.count_tokens(r) for r in replies]
    assert [o.n_tokens for o in warm] == lengths
    assert all(o.total < 0 for o in warm)


def test_a_reply_needs_a_chat_template_and_real_options(smollm) -> None:
    from quizsmith.errors import CapabilityError

    messages = reader_chat(QUESTIONS[0])
    assert smollm.reply_logprobs(messages, []) == []
    with pytest.raises(ProviderError, match="empty"):
        smollm.reply_logprobs(messages, ["Khartoum", ""])
    smollm.is_chat_model = False
    try:
        with pytest.raises(CapabilityError, match="chat template"):
            smollm.reply_logprobs(messages, ["Khartoum"])
    finally:
        smollm.is_chat_model = True


def test_a_transient_head_serves_the_next_call_but_is_not_kept(smollm, monkeypatch) -> None:
    """The question as a Transient head: the reply scored right after the answer reads only
    the template's tail and the reply, and no state is kept for the question (a passage's
    state is); the numbers equal a cold start's, bit for bit."""
    from quizsmith.providers.base import Transient

    messages = reader_chat(QUESTIONS[0])
    asked = messages[-1].content
    heads = (PASSAGE, Transient(asked))
    forget_kept_state()
    cold = smollm.reply_logprobs(messages, ["Khartoum"], reuse_prefix=heads)
    forget_kept_state()
    smollm.chat(messages, max_tokens=8, reuse_prefix=heads)
    loaded = smollm._get()
    assert len(loaded.states) == 1, "the passage's state only"
    assert loaded.live is not None
    passage_cut, question_cut = loaded.live[1]
    evaluated: list[int] = []
    real_eval = loaded.llm.eval
    monkeypatch.setattr(loaded.llm, "eval", lambda t: evaluated.append(len(t)) or real_eval(t))
    decoded_from: list[int] = []
    real_decode = llamacpp_scoring.decode

    def counting(llm, tokens, n_past, logits_from):
        decoded_from.append(n_past)
        return real_decode(llm, tokens, n_past, logits_from)

    monkeypatch.setattr(llamacpp_scoring, "decode", counting)
    warm = smollm.reply_logprobs(messages, ["Khartoum"], reuse_prefix=heads)
    assert evaluated == [], "neither passage nor question read again"
    # Decoding starts after the question: only the template's tail and the reply are read.
    assert decoded_from[0] == question_cut > passage_cut + smollm.count_tokens(QUESTIONS[0])
    assert warm[0].token_logprobs == cold[0].token_logprobs
    assert len(loaded.states) == 1
