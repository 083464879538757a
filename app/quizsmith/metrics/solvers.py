"""Multiple-choice "students": language models and an embedding model that give a probability
to each option of a question, with or without a text to read first.

Why this module is long: KDA and EXAM share these students, so the three solver styles, their
prompts and the windowing of long texts stay in one place (the prompts live here only).

KDA (kda paper, section 3.2) uses them as simulated students, with and without the target
fact; EXAM (exam paper, section 3.1) uses the same solvers as its Q/A system over a passage or
a handout, so the prompts live here only.

Styles (the KDA paper used 18 fine-tuned solvers of several kinds; we have two tiny bundled
LLMs, so each model is asked in two ways to get more, and more varied, students):

- letter choice: the options are listed with letters and the solver's probability of each
  letter after "Answer:" is read from one `option_logprobs` call (the prefix is evaluated once
  and reused for every letter), softmax over the letters only;
- option likelihood: the length-normalised (mean per token) log-likelihood of each option text
  after the stem, softmax over the options (the options are not listed, so their order cannot
  matter);
- embedding similarity: cosine between (text + stem) and each option, softmax with a
  temperature.

Options are presented in a seeded shuffled order, so that a model's preference for "A" does
not decide the result; every output says which order was used and gives the probabilities in
the item's own option order.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from quizsmith.errors import STOPS_THE_JOB, CapabilityError, QuizsmithError
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.profiles import choose_profile, model_config
from quizsmith.providers.base import Provider
from quizsmith.settings import MULTI_ROLES, Settings

LETTERS = "ABCDEFGHIJ"

#: One worked example put before the question for few-shot (base and tiny) models, so that a
#: letter is a likely continuation of "Answer:" at all. Its key is C (not A) so that the
#: example itself does not teach a position bias. The example's text line is dropped when the
#: question is asked without a text, so that example and question have the same shape.
#: Deliberately short (about 30 tokens): it is evaluated again in every letter-choice call.
FEWSHOT_TEXT = "On a clear day the sky is blue."
FEWSHOT_QUESTION = "What color is the sky on a clear day?"
FEWSHOT_OPTIONS = ("green", "red", "blue", "black")
FEWSHOT_ANSWER = "C"

#: Softmax temperature for cosine similarities. Cosines of MiniLM sentence embeddings between a
#: question and candidate answers differ by a few hundredths to a few tenths; at T=1 every
#: option would get almost the same probability. 0.05 is the temperature sentence-embedding
#: models are trained with (SimCSE, and the contrastive loss of all-MiniLM-L6-v2), so a cosine
#: lead of 0.05 means a factor e over the other option.
EMBEDDING_TEMPERATURE = 0.05

#: Tokens kept free besides prompt and options: the BOS token and tokenizer merges at the seams.
TOKEN_MARGIN = 16
#: Without a tokenizer, a window budget in characters (about 4 per token for English).
CHARS_PER_TOKEN = 4
DEFAULT_CHAR_BUDGET = 2000


@dataclass(frozen=True)
class SolverOutput:
    """One solver's answer to one question under one condition.

    `probs` and `raw` are in the item's option order; `order` is the presented order as
    indices into that list (order[0] was shown as "A"), identity for order-blind styles.
    """

    solver: str
    probs: tuple[float, ...]
    order: tuple[int, ...]
    raw: tuple[float, ...]
    #: Which window of a long text was used, and how many there were (1 = the whole text).
    window: int = 0
    n_windows: int = 1

    @property
    def choice(self) -> int:
        return max(range(len(self.probs)), key=lambda i: self.probs[i])

    def correct(self, key: int) -> bool:
        """The paper's r_j: 1 when the key has the largest score. A tie is not a win (the
        solver did not prefer the key)."""
        return all(self.probs[key] > p for i, p in enumerate(self.probs) if i != key)


class Solver(Protocol):
    @property
    def label(self) -> str: ...

    def config(self) -> dict[str, Any]: ...

    def fits(self, context: str | None, stem: str, options: Sequence[str]) -> bool: ...

    def probabilities(
        self, context: str | None, stem: str, options: Sequence[str], seed: int
    ) -> SolverOutput: ...


def softmax(scores: Sequence[float], temperature: float = 1.0) -> list[float]:
    top = max(scores)
    exps = [math.exp((s - top) / temperature) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def shuffled_order(n: int, seed: int) -> list[int]:
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return order


def solver_seed(seed: int, label: str) -> int:
    """A per-solver seed that is stable across runs (Python's str hash is salted)."""
    return (seed * 1_000_003 + sum((i + 1) * ord(c) for i, c in enumerate(label))) % 2**31


def _check_options(options: Sequence[str]) -> None:
    if len(options) < 2:
        raise ValueError("a multiple-choice question needs at least two options.")
    if len(options) > len(LETTERS):
        raise ValueError(f"at most {len(LETTERS)} options can be lettered.")


def _context_block(context: str | None) -> str:
    return f"Text: {context.strip()}\n" if context and context.strip() else ""


class _LogprobSolver:
    style: ClassVar[str] = ""

    def __init__(self, provider: Provider, settings: Settings | None = None) -> None:
        if not provider.can_logprob:
            raise CapabilityError(
                f"{provider.info.model} gives no token log-probabilities.",
                "Choose a local GGUF model or a server that returns prompt logprobs.",
            )
        self.provider = provider
        self.profile = choose_profile(provider, settings)

    @property
    def label(self) -> str:
        return f"{self.provider.info.model}/{self.style}"

    def config(self) -> dict[str, Any]:
        return model_config(self.provider, self.profile, style=self.style)

    def reading(self, context: str | None) -> str:
        raise NotImplementedError

    def prompt(self, context: str | None, stem: str, options: Sequence[str]) -> str:
        raise NotImplementedError

    def continuations(self, options: Sequence[str]) -> list[str]:
        raise NotImplementedError

    def probabilities(
        self, context: str | None, stem: str, options: Sequence[str], seed: int
    ) -> SolverOutput:
        raise NotImplementedError

    def fits(self, context: str | None, stem: str, options: Sequence[str]) -> bool:
        """Whether prompt plus the longest continuation fits the model's context. The letter
        prompt lists all options, so any order gives the same length."""
        text = self.prompt(context, stem, options) + max(self.continuations(options), key=len)
        size = self.provider.context_size
        count = self.provider.count_tokens(text) if size is not None else None
        if size is not None and count is not None:
            return count + TOKEN_MARGIN <= size
        return len(text) <= DEFAULT_CHAR_BUDGET


class LetterChoiceSolver(_LogprobSolver):
    """Options listed as A., B., ...; probability of each letter after "Answer:"."""

    style: ClassVar[str] = "letter"

    def reading(self, context: str | None) -> str:
        """The part of the prompt before the question: the worked example and the text. It
        does not change when the teacher edits the item, so the model keeps its state."""
        return self._shot(context) + _context_block(context)

    def _shot(self, context: str | None) -> str:
        shot = ""
        if self.profile == "fewshot":
            listed = "".join(f"{LETTERS[i]}. {o}\n" for i, o in enumerate(FEWSHOT_OPTIONS))
            example_text = _context_block(FEWSHOT_TEXT) if context else ""
            shot = (
                f"{example_text}Question: {FEWSHOT_QUESTION}\n{listed}Answer: {FEWSHOT_ANSWER}\n\n"
            )
        return shot

    def prompt(self, context: str | None, stem: str, options: Sequence[str]) -> str:
        listed = "".join(f"{LETTERS[i]}. {o.strip()}\n" for i, o in enumerate(options))
        return f"{self.reading(context)}Question: {stem.strip()}\n{listed}Answer:"

    def continuations(self, options: Sequence[str]) -> list[str]:
        return [f" {LETTERS[i]}" for i in range(len(options))]

    def probabilities(
        self, context: str | None, stem: str, options: Sequence[str], seed: int
    ) -> SolverOutput:
        _check_options(options)
        order = shuffled_order(len(options), seed)
        shown = [options[i] for i in order]
        scored = self.provider.option_logprobs(
            self.prompt(context, stem, shown),
            self.continuations(shown),
            reuse_prefix=(self._shot(context), self.reading(context)),
        )
        # Letter k was shown for option order[k]; map back to the item's order.
        raw = [0.0] * len(options)
        for k, lp in enumerate(scored):
            raw[order[k]] = lp.total
        return SolverOutput(self.label, tuple(softmax(raw)), tuple(order), tuple(raw))


class OptionLikelihoodSolver(_LogprobSolver):
    """Mean token log-likelihood of each option text after the stem; options never listed."""

    style: ClassVar[str] = "likelihood"

    def reading(self, context: str | None) -> str:
        return _context_block(context)

    def prompt(self, context: str | None, stem: str, options: Sequence[str]) -> str:
        return f"{self.reading(context)}Question: {stem.strip()}\nAnswer:"

    def continuations(self, options: Sequence[str]) -> list[str]:
        return [" " + o.strip() for o in options]

    def probabilities(
        self, context: str | None, stem: str, options: Sequence[str], seed: int
    ) -> SolverOutput:
        _check_options(options)
        scored = self.provider.option_logprobs(
            self.prompt(context, stem, options),
            self.continuations(options),
            reuse_prefix=self.reading(context),
        )
        # Length-normalised: a long option is not penalised for having more tokens.
        raw = [lp.mean for lp in scored]
        order = tuple(range(len(options)))  # the options are not listed: order cannot matter
        return SolverOutput(self.label, tuple(softmax(raw)), order, tuple(raw))


class EmbeddingSolver:
    """Cosine between (text + stem) and each option, softmax at EMBEDDING_TEMPERATURE."""

    style: ClassVar[str] = "embedding"

    def __init__(self, provider: Provider, temperature: float = EMBEDDING_TEMPERATURE) -> None:
        if not provider.can_embed:
            raise CapabilityError(
                f"{provider.info.model} gives no embeddings.", "Choose an embedding model."
            )
        self.provider = provider
        self.temperature = temperature
        self._option_cache: dict[str, list[float]] = {}

    @property
    def label(self) -> str:
        return f"{self.provider.info.model}/{self.style}"

    def config(self) -> dict[str, Any]:
        return model_config(
            self.provider, "embedding", style=self.style, temperature=self.temperature
        )

    def fits(self, context: str | None, stem: str, options: Sequence[str]) -> bool:
        # The embedding model truncates (MiniLM: 256 word pieces); beyond that the rest of the
        # text would be silently ignored, so long texts are windowed like for the LLMs.
        max_tokens = self.provider.max_length or 256
        query = f"{context or ''} {stem}"
        return len(query) <= max_tokens * CHARS_PER_TOKEN * 3 // 4

    def probabilities(
        self, context: str | None, stem: str, options: Sequence[str], seed: int
    ) -> SolverOutput:
        _check_options(options)
        query = f"{context.strip()} {stem.strip()}" if context else stem.strip()
        missing = [o for o in options if o not in self._option_cache]
        vectors = self.provider.embed([query, *missing])
        for text, vec in zip(missing, vectors[1:], strict=True):
            self._option_cache[text] = vec
        q = vectors[0]
        raw = [_cosine(q, self._option_cache[o]) for o in options]
        probs = softmax(raw, self.temperature)
        return SolverOutput(self.label, tuple(probs), tuple(range(len(options))), tuple(raw))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


# -- building the ensembles --------------------------------------------------------------------
@dataclass
class SolverSet:
    solvers: list[Solver] = field(default_factory=list)
    #: model reference -> why it is not among the solvers (shown in the evidence).
    skipped: dict[str, str] = field(default_factory=dict)


def solvers_from_options(
    ctx: MetricContext, options: Mapping[str, Any], role: str = "solvers"
) -> SolverSet:
    """The solver set a metric's options ask for: the models of `role` in `options["styles"]`
    plus the embedding solver when `options["embedding_solver"]` (KDA's and EXAM's setup)."""
    refs = ctx.settings.role_list(role) if role in MULTI_ROLES else [ctx.settings.role(role)]
    embedding = ctx.settings.role("embeddings") if options.get("embedding_solver") else None
    return build_solvers(
        refs,
        ctx.provider_for,
        ctx.settings,
        embedding_ref=embedding,
        styles=list(options.get("styles") or ["letter", "likelihood"]),
    )


def build_solvers(
    refs: Sequence[str],
    provider_for: Callable[[str], Provider],
    settings: Settings | None = None,
    *,
    embedding_ref: str | None = None,
    styles: Sequence[str] = ("letter", "likelihood"),
) -> SolverSet:
    """Each model in `refs` in each style it supports, plus the embedding solver.

    A model that cannot be loaded or gives no log-probabilities (e.g. an API chat model
    without prompt logprobs) is skipped and recorded, not fatal: the others still vote.
    """
    out = SolverSet()
    kinds = {"letter": LetterChoiceSolver, "likelihood": OptionLikelihoodSolver}
    for ref in refs:
        try:
            provider = provider_for(ref)
            for style in styles:
                out.solvers.append(kinds[style](provider, settings))
        except STOPS_THE_JOB:
            raise
        except QuizsmithError as exc:
            out.skipped[ref] = str(exc)
    if embedding_ref:
        try:
            out.solvers.append(EmbeddingSolver(provider_for(embedding_ref)))
        except STOPS_THE_JOB:
            raise
        except QuizsmithError as exc:
            out.skipped[embedding_ref] = str(exc)
    return out


# -- long texts: windows -----------------------------------------------------------------------
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip())]
    return [p for p in parts if p]


def make_windows(text: str, fits: Callable[[str], bool], *, overlap: int = 1) -> list[str]:
    """Cover `text` with windows of whole sentences that each satisfy `fits`, consecutive
    windows sharing `overlap` sentences (so a fact split over a window border is whole in one of
    them). A sentence too long on its own is cut into word runs that fit."""
    if fits(text):
        return [text]
    units: list[str] = []
    for sentence in split_sentences(text):
        units.extend([sentence] if fits(sentence) else _split_words(sentence, fits))
    windows: list[str] = []
    start = 0
    while start < len(units):
        end = start + 1
        while end < len(units) and fits(" ".join(units[start : end + 1])):
            end += 1
        windows.append(" ".join(units[start:end]))
        if end >= len(units):
            break
        # Step forward keeping `overlap` sentences, but always make progress.
        start = max(start + 1, end - overlap)
    return windows


def _split_words(sentence: str, fits: Callable[[str], bool]) -> list[str]:
    words = sentence.split()
    pieces: list[str] = []
    current: list[str] = []
    for word in words:
        if current and not fits(" ".join([*current, word])):
            pieces.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        pieces.append(" ".join(current))
    return pieces


def solve_windowed(
    solver: Solver,
    text: str,
    stem: str,
    options: Sequence[str],
    seed: int,
    best: Callable[[SolverOutput], float],
    *,
    check_cancel: Callable[[], None] = lambda: None,
) -> SolverOutput:
    """The solver on the whole text if it fits, else on every window; keeps the window where
    `best` is highest (KDA: the key's probability, as the reference implementation does;
    EXAM: the solver's own confidence, since a Q/A system must not see the key)."""
    windows = make_windows(text, lambda w: solver.fits(w, stem, options))
    results: list[SolverOutput] = []
    for window in windows:
        check_cancel()
        results.append(solver.probabilities(window, stem, options, seed))
    index = max(range(len(results)), key=lambda i: best(results[i]))
    chosen = results[index]
    return SolverOutput(chosen.solver, chosen.probs, chosen.order, chosen.raw, index, len(windows))


def presented(out: SolverOutput, options: Sequence[str]) -> str:
    """The order the solver saw, for the evidence: "A=Paris, B=Rome, ..."."""
    return ", ".join(f"{LETTERS[k]}={options[i]}" for k, i in enumerate(out.order))


__all__ = [
    "EmbeddingSolver",
    "LetterChoiceSolver",
    "OptionLikelihoodSolver",
    "Solver",
    "SolverOutput",
    "SolverSet",
    "build_solvers",
    "make_windows",
    "presented",
    "softmax",
    "solve_windowed",
    "solvers_from_options",
    "split_sentences",
]
