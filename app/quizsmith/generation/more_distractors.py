"""Other wrong answers for a multiple-choice item already written, to replace one of its
own (issue 47: the editor offered only another question's wording).

They come the way a generation's do (`wrong_answer_sets.wrong_answers`): the question-writing
model's candidates, then the passage's phrases of the key's kind and nearby numbers, through the
same checks (the key's kind and form, not also true per the passage, not named by the question),
the survivors ordered by how plausible a student who did not learn the fact would find them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.generation import distractors as dis
from quizsmith.generation import writer
from quizsmith.generation.analysis import analyse
from quizsmith.generation.build_context import BuildContext
from quizsmith.generation.distractor_kinds import kind_of_stems
from quizsmith.generation.target import Target
from quizsmith.generation.wrong_answer_sets import wrong_answers
from quizsmith.jobs import CancelToken
from quizsmith.providers.base import Provider
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings
from quizsmith.text import PassageError

#: How many survivors to keep besides the item's own options: a menu's worth.
MORE = 6


def other_wrong_answers(
    item: Item, settings: Settings, cancel: CancelToken, *, seed: int = 0
) -> list[str]:
    """Wrong answers for `item` that pass the generation's checks and are none of its
    options, best first (`seed` varies the model's suggestions between requests)."""
    passage = item.passage
    if passage is None or not passage.text.strip():
        raise PassageError(
            "This item has no passage to find wrong answers in.",
            "Type a wrong answer yourself, or generate the item from a passage.",
        )
    if not item.key.strip():
        raise PassageError("The item has no answer yet.", "Type the correct answer first.")
    text = passage.text
    fact = item.target_fact.strip() or _sentence_with(text, item.key)
    fact_start = max(0, text.find(fact))
    answer_start = fact_start + max(0, fact.find(item.key))
    target = Target(fact, fact_start, item.key, answer_start, "phrase", -1, 0.0)
    generator = provider_for_role("generator", settings)
    qa = _optional("qa", settings)
    embedder = _optional("embeddings", settings)
    analysis = analyse(text)
    ctx = BuildContext(
        passage=passage,
        generator=generator,
        profile=writer.profile_for(generator, settings),
        embed=_embed(embedder),
        qa=qa if qa is not None and qa.can_logprob else None,
        cancel=cancel,
        difficulty=item.difficulty,
        seed=seed,
        passage_terms=dict(analysis.terms),
        qa_knows_kinds=qa is not None and writer.profile_for(qa, settings) == "chat",
    )
    own = {o.text.casefold() for o in item.options} | {item.key.casefold()}
    # Enough kept that the item's own options can be among them and a menu is left.
    ctx.filter_config = replace(ctx.filter_config, wanted=len(item.options) + MORE)
    asked = kind_of_stems([item.stem])
    outcome, _note = wrong_answers(
        item.stem, target, ctx, seed, asked, ctx.passage_terms if asked else None
    )
    found = [t for t in [*outcome.kept, *outcome.spare] if t.casefold() not in own]
    return [t for t in found if not dis.named_in(t, item.stem)][:MORE]


def _sentence_with(text: str, key: str) -> str:
    """The passage's first sentence that holds the key (the fact a target would have)."""
    from quizsmith.generation.sentences import split_sentences

    wanted = key.casefold()
    for sentence in split_sentences(text):
        if wanted in sentence.text.casefold():
            return sentence.text
    return text[:500]


def _optional(role: str, settings: Settings) -> Provider | None:
    """A model the checks use where it is there (as a generation does without it: fewer
    checks, never no answer)."""
    try:
        return provider_for_role(role, settings)
    except QuizsmithError:
        return None


def _embed(
    embedder: Provider | None,
) -> Callable[[Sequence[str]], list[list[float]]] | None:
    return embedder.embed if embedder is not None else None
