"""A question's options scored in one multi-sequence batch (providers/llamacpp_scoring.py,
`_score_batched`): deterministic whatever ran before, close to the one-option-at-a-time path,
and that path taken when the options do not fit one batch."""

from __future__ import annotations

import pytest

from quizsmith.errors import ProviderError
from quizsmith.providers.llamacpp import LlamaCppProvider
from quizsmith.providers.llamacpp_models import OPTION_SEQUENCES, forget_kept_state

pytestmark = pytest.mark.slow

READING = (
    "Passage: The Nile is the longest river in Africa. It flows north for about 6,650 "
    "kilometres and empties into the Mediterranean Sea. The Aswan High Dam, completed in "
    "1970, controls its annual flood.\n"
)
QUESTION = READING + "Question: Where does the Nile end?\nAnswer:"
OTHER = READING + "Question: When was the dam completed?\nAnswer:"
OPTIONS = [" the Mediterranean Sea", " the Red Sea", " the Atlantic Ocean", " Lake Victoria"]


def batching(provider: LlamaCppProvider) -> LlamaCppProvider:
    """A twin of a shared provider with batched option scoring on (it is off by default:
    docs/metrics.md, "All options in one batch"); both use the same loaded model."""
    return LlamaCppProvider(
        provider.model_path,
        model_id=provider.model_id,
        n_ctx=provider.n_ctx,
        n_threads=provider.n_threads,
        batch_options=True,
    )


@pytest.fixture(scope="module")
def smollm(smollm: LlamaCppProvider) -> LlamaCppProvider:
    return batching(smollm)


@pytest.fixture(scope="module")
def gemma(gemma: LlamaCppProvider) -> LlamaCppProvider:
    return batching(gemma)


def paths_taken(provider) -> set[str]:
    """Which scoring path the remembered option scores came from (the memo key's last part)."""
    return {key[-1] for key in provider._get().memo if key[0] == "option_logprobs"}


def logprobs(results) -> list[tuple[float, ...]]:
    return [r.token_logprobs for r in results]


@pytest.mark.parametrize("fixture", ["smollm", "gemma"])
def test_batched_scores_do_not_depend_on_what_ran_before(fixture, request) -> None:
    provider = request.getfixturevalue(fixture)
    forget_kept_state()
    cold = provider.option_logprobs(QUESTION, OPTIONS, reuse_prefix=READING)
    assert paths_taken(provider) == {"batched"}
    scratch = provider.option_logprobs(QUESTION, OPTIONS, strategy="scratch", reuse_prefix=READING)
    loaded = provider._get()
    runs = [cold, scratch]
    # Another question on the same passage (the reading's state kept, other options in the
    # sequences), a generation, the same options in another order: then the first again.
    for before in (
        lambda: provider.option_logprobs(OTHER, [" 1970", " 1902", " 6,650"], reuse_prefix=READING),
        lambda: provider.complete("Unrelated text that empties the cache.", max_tokens=4),
        lambda: provider.option_logprobs(QUESTION, OPTIONS[::-1], reuse_prefix=READING),
        lambda: forget_kept_state(),
    ):
        before()
        loaded.memo.clear()
        runs.append(provider.option_logprobs(QUESTION, OPTIONS, reuse_prefix=READING))
    assert all(logprobs(run) == logprobs(cold) for run in runs)
    # The options in another order are the same numbers in another order.
    loaded.memo.clear()
    reverse = provider.option_logprobs(QUESTION, OPTIONS[::-1], reuse_prefix=READING)
    again = provider.option_logprobs(QUESTION, OPTIONS[::-1], reuse_prefix=READING)
    assert logprobs(again) == logprobs(reverse)


@pytest.mark.parametrize("fixture", ["smollm", "gemma"])
def test_batched_close_to_sequential_with_the_same_best_option(fixture, request) -> None:
    provider = request.getfixturevalue(fixture)
    forget_kept_state()
    batched = provider.option_logprobs(QUESTION, OPTIONS, reuse_prefix=READING)
    sequential = provider.option_logprobs(
        QUESTION, OPTIONS, strategy="sequential", reuse_prefix=READING
    )
    assert paths_taken(provider) == {"batched", "sequential"}
    for a, b in zip(batched, sequential, strict=True):
        assert a.option == b.option and a.n_tokens == b.n_tokens
        # The first token of every option is predicted by the prefix's last row, the same
        # decode on both paths; the rest by a batch of another size: llama.cpp's CPU
        # kernels then differ (measured up to 0.46 nats per token on SQuAD items,
        # bench/option_scoring.py).
        assert a.token_logprobs[0] == b.token_logprobs[0]
        assert abs(a.total - b.total) < 0.3
    assert max(batched, key=lambda o: o.mean).option == " the Mediterranean Sea"
    assert max(sequential, key=lambda o: o.mean).option == " the Mediterranean Sea"


def test_options_of_one_token_and_of_many(smollm) -> None:
    forget_kept_state()
    long = " the warm blue waters of the Mediterranean Sea, past Alexandria and the delta"
    options = [" A", long, " Rome"]
    batched = smollm.option_logprobs(QUESTION, options, reuse_prefix=READING)
    sequential = smollm.option_logprobs(
        QUESTION, options, strategy="sequential", reuse_prefix=READING
    )
    assert batched[0].n_tokens == 1 and batched[1].n_tokens > 10
    # One token: only the prefix's last row, identical on both paths.
    assert batched[0].token_logprobs == sequential[0].token_logprobs
    for a, b in zip(batched, sequential, strict=True):
        assert a.n_tokens == b.n_tokens
        pairs = zip(a.token_logprobs, b.token_logprobs, strict=True)
        assert max(abs(x - y) for x, y in pairs) < 0.2
    # Only options of a single token: nothing to batch, the same numbers on both paths.
    letters = [" A", " B", " C", " D"]
    assert logprobs(smollm.option_logprobs(QUESTION, letters)) == logprobs(
        smollm.option_logprobs(QUESTION, letters, strategy="sequential")
    )


def test_more_options_than_sequences_are_scored_one_after_another(smollm) -> None:
    forget_kept_state()
    many = [f" option number {i}" for i in range(OPTION_SEQUENCES)]  # one more than fits
    scored = smollm.option_logprobs(QUESTION, many, reuse_prefix=READING)
    assert paths_taken(smollm) == {"sequential"}
    assert len(scored) == len(many)
    reference = smollm.option_logprobs(QUESTION, many, strategy="scratch", reuse_prefix=READING)
    assert logprobs(scored) == logprobs(reference)
    smollm._get().memo.clear()
    assert paths_taken(smollm) == set()
    smollm.option_logprobs(QUESTION, many[:-1], reuse_prefix=READING)
    assert paths_taken(smollm) == {"batched"}


def test_options_that_do_not_fit_the_context_are_scored_one_after_another(smollm) -> None:
    # A 512-token context (another loaded instance of the same file): the passage and one
    # option fit, the passage and all the options together do not.
    small = LlamaCppProvider(
        smollm.model_path, n_ctx=512, n_threads=smollm.n_threads, batch_options=True
    )
    prefix = READING * 7 + "Question: Where does the Nile end?\nAnswer:"
    names = ("the Mediterranean Sea", "the Red Sea", "the Atlantic Ocean", "Lake Victoria")
    options = [" " + ", ".join([name] * 12) for name in names]
    n_prefix = small.count_tokens(prefix)
    n_options = [small.count_tokens(o) for o in options]
    assert n_prefix + sum(n_options) > 512 >= n_prefix + sum(n_options[2:])
    scored = small.option_logprobs(prefix, options)
    assert paths_taken(small) == {"sequential"}
    assert logprobs(scored) == logprobs(small.option_logprobs(prefix, options, strategy="scratch"))
    # Two of them fit: batched again.
    small.option_logprobs(prefix, options[2:])
    assert "batched" in paths_taken(small)


def test_batching_is_off_by_default(smollm) -> None:
    from quizsmith.providers import provider_for
    from quizsmith.settings import Settings

    twin = provider_for("smollm2-135m-instruct", Settings())
    assert isinstance(twin, LlamaCppProvider) and not twin.batch_options
    forget_kept_state()
    off = twin.option_logprobs(QUESTION, OPTIONS, reuse_prefix=READING)
    assert paths_taken(twin) == {"sequential"}
    assert logprobs(off) == logprobs(
        smollm.option_logprobs(QUESTION, OPTIONS, strategy="sequential", reuse_prefix=READING)
    )


def test_only_the_prefix_sequence_is_left_behind(smollm) -> None:
    from llama_cpp import llama_cpp as lib

    forget_kept_state()
    smollm.option_logprobs(QUESTION, OPTIONS, reuse_prefix=READING)
    memory = smollm._get().llm._ctx.memory
    assert lib.llama_memory_seq_pos_max(memory, 0) >= 0
    for seq in range(1, OPTION_SEQUENCES):
        assert lib.llama_memory_seq_pos_max(memory, seq) == -1


def test_no_options_and_an_empty_option(smollm) -> None:
    assert smollm.option_logprobs(QUESTION, []) == []
    with pytest.raises(ProviderError, match="empty"):
        smollm.option_logprobs(QUESTION, [" the Red Sea", ""])
