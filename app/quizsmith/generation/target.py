"""A target: a fact of the passage to ask about and the answer inside it; and the check that
a passage is written in a script Quizsmith can read (`written_without_spaces`)."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Final, Literal

TargetKind = Literal["number", "date", "entity", "phrase", "concept", "term", "pinned"]

#: Longer answers stop being answers: they are clauses a student cannot produce or recognise.
MAX_ANSWER_WORDS: Final = 6


@dataclass(frozen=True)
class Target:
    """A fact to ask about and the answer inside it.

    `fact == passage[fact_start:fact_start + len(fact)]` and
    `answer == passage[answer_start:answer_start + len(answer)]`, with the answer inside the fact.
    """

    fact: str
    fact_start: int
    answer: str
    answer_start: int
    kind: TargetKind
    sentence_index: int
    score: float

    @property
    def fact_end(self) -> int:
        return self.fact_start + len(self.fact)

    @property
    def answer_end(self) -> int:
        return self.answer_start + len(self.answer)

    def seed(self, run_seed: int) -> int:
        """The seed of this target's model calls in a run: the run's seed and the target's
        own fact and answer, not its place among the targets. So a target asked again in
        another order (a pin added, a ranking changed) samples the same wrong answers, and a
        change to some targets leaves the others' items as they were: with the place's seed,
        a reordering resampled every item's wrong answers, and on the bench those alone
        moved 20 usable of 38 to 17 (studies/target_kinds.py). Spaced by 100: an item's
        attempts and retries add less (builder.py), and they stay below 2**32, the largest
        seed a model or NumPy takes (cli_shared.MAX_SEED)."""
        digest = zlib.crc32(f"{self.fact}\n{self.answer}".encode())
        return (run_seed + 100 * (digest % 1_000_000)) % (2**32 - 100)


#: Letters of scripts written without spaces between words (Chinese, Japanese kana and kanji,
#: Thai, Lao, Myanmar, Khmer). The finder's words and the item checks' word counts are
#: space-separated, so no answer is found in such text.
_UNSPACED_SCRIPT = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff"
    "\u1000-\u109f\u1780-\u17ff\U00020000-\U0002ffff]"
)
#: English with a quoted Chinese term stays English; a Chinese text with English names is not.
_UNSPACED_SHARE: Final = 0.5

ENGLISH_ONLY_NOTE: Final = (
    "The passage is written without spaces between words (Chinese, Japanese or Thai, for "
    "example): Quizsmith finds answers and checks questions by English words, and the bundled "
    "models are English-only, so it cannot make items from such text yet."
)


def written_without_spaces(text: str) -> bool:
    """Whether `text` is mostly in scripts that do not separate words by spaces, where
    rule-based targets and the question checks do not work. Each such character counts
    as much as a space-separated word of another script (a Chinese character is about a
    syllable), and at least half of the count must be theirs."""
    unspaced = len(_UNSPACED_SCRIPT.findall(text))
    if not unspaced:
        return False
    others = sum(
        any(ch.isalpha() for ch in word) for word in _UNSPACED_SCRIPT.sub(" ", text).split()
    )
    return unspaced / (unspaced + others) >= _UNSPACED_SHARE
