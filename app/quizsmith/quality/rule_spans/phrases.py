"""Names and noun phrases in a sentence, by rules (generation/targets.py describes them and
their limits): runs of capitalised words (`_entities`) and lower-case noun-phrase-like runs
(`_noun_phrases`), with the passage-wide facts they use (which words the passage capitalises
mid-sentence, how often each content word recurs).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Final

from quizsmith.generation.sentences import Sentence
from quizsmith.quality.rule_spans.words import (
    _ACRONYM,
    _COMMON_ADJECTIVES,
    _DETERMINERS,
    _HONORIFICS,
    _NAME_CONNECTORS,
    _NON_NOUN_SUFFIXES,
    _NOUNS_WITH_ADJECTIVE_SUFFIX,
    _OPENERS,
    _WEEKDAYS,
    _WORD,
    COMMON_VERBS,
    PRONOUNS,
    STOPWORDS,
    _words,
)


def _midsentence_capitalised(sentences: Sequence[Sentence]) -> set[str]:
    """Words the passage capitalises other than as a sentence's first word: names."""
    names: set[str] = set()
    for sentence in sentences:
        words = [m.group() for m in _WORD.finditer(sentence.text)]
        for word in words[1:]:
            if word[:1].isupper():
                names.add(_strip_possessive(word.rstrip(".")))
    return names


def _content_word_frequency(sentences: Sequence[Sentence]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for sentence in sentences:
        for m in _WORD.finditer(sentence.text):
            word = m.group().casefold().rstrip(".")
            if word not in STOPWORDS and not word[:1].isdigit():
                counts[_stem(word)] += 1
    return counts


def _stem(word: str) -> str:
    """Crude plural folding so that "cell" and "cells" count together."""
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2 and not word.endswith("ss"):
            return word[: -len(suffix)] + repl
    return word


def _strip_possessive(word: str) -> str:
    for suffix in ("'s", "’s", "'", "’"):
        if word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _is_opener(word: str) -> bool:
    lowered = word.casefold()
    return (
        lowered in STOPWORDS
        or lowered in PRONOUNS
        or lowered in _OPENERS
        or (lowered.endswith("ly") and len(lowered) > 4)
    )


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _entities(sentence: str, midsentence_caps: set[str]) -> list[tuple[int, int, int]]:
    """(start, end, word count) of name-like runs of capitalised words in a sentence."""
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence)]
    found: list[tuple[int, int, int]] = []
    i = 0
    while i < len(words):
        word = words[i][2]
        if not _is_capitalised(word) or word.casefold().rstrip(".") in _HONORIFICS:
            i += 1
            continue
        run = [i]
        j = i + 1
        while j < len(words):
            between = sentence[words[j - 1][1] : words[j][0]]
            # A plural possessive stays inside a name: "Rangi Ruru Girls' School" (cut to
            # "Rangi Ruru Girls", a key no option can match: bench/generation.py, e9dc5b4).
            possessive = between.strip() in ("'", "’") and words[j - 1][2].endswith("s")
            if between.strip() not in ("", "-", "&") and not (
                possessive and _is_capitalised(words[j][2])
            ):  # other punctuation ends a name
                break
            if _is_capitalised(words[j][2]):
                run.append(j)
                j += 1
                continue
            # Up to two connectors, then a capitalised word: "Isle of the Dead".
            k = j
            while (
                k < len(words)
                and k - j < 2
                and words[k][2] in _NAME_CONNECTORS
                and sentence[words[k - 1][1] : words[k][0]].strip() == ""
            ):
                k += 1
            if (
                k > j
                and k < len(words)
                and _is_capitalised(words[k][2])
                and sentence[words[k - 1][1] : words[k][0]].strip() == ""
            ):
                run.extend(range(j, k + 1))
                j = k + 1
                continue
            break
        i = j
        names = [words[r][2] for r in run]
        # A sentence-initial function word or adverb is not part of the name: "The Home
        # Guard", "Later Goldenson".
        while run and run[0] == 0 and _is_opener(names[0]):
            run, names = run[1:], names[1:]
        while names and names[0].casefold() in _NAME_CONNECTORS:
            run, names = run[1:], names[1:]
        if not run:
            continue
        if run[0] == 0 and len(run) == 1:
            bare = _strip_possessive(names[0].rstrip("."))
            if not (_ACRONYM.match(bare) or bare in midsentence_caps):
                continue  # just the sentence's first word
        if len(run) == 1:
            bare = names[0].casefold().rstrip(".")
            if bare in STOPWORDS or bare in PRONOUNS or bare in _WEEKDAYS:
                continue
        s = words[run[0]][0]
        e = words[run[-1]][1]
        text = sentence[s:e]
        # A sentence-final period belongs to the sentence, unless the name is an acronym
        # ("U.S.") or an initial.
        if text.endswith(".") and not re.search(r"(?:^|[\s.])[A-Z]\.$", text):
            e -= 1
            text = text[:-1]
        stripped = _strip_possessive(text)
        e -= len(text) - len(stripped)
        if e > s:
            found.append((s, e, len(run)))
    return found


def _looks_like_noun(word: str) -> bool:
    lowered = word.casefold()
    if lowered in COMMON_VERBS or lowered in STOPWORDS or lowered in _COMMON_ADJECTIVES:
        return False
    singular = _stem(lowered)
    if singular in _NOUNS_WITH_ADJECTIVE_SUFFIX:
        return True
    if lowered.endswith("ing") and len(lowered) > 5:
        return False  # mostly verbs; nouns in -ing ("building") are lost, a stated limit
    return not singular.endswith(_NON_NOUN_SUFFIXES)


#: After a word in -s, these make it a verb rather than a plural noun: an adverb in -ly, an
#: article or possessive, a number ("the hall seats 300", "the river floods the plain").
_AFTER_A_VERB: Final = _words("the a an its their his her this these those")
#: Words of direction or degree after a word in -s that also make it a verb when it follows
#: a noun ("the river flows across", "the river swings from side to side", "the water flows
#: fastest"): keys and wrong answers of the textbook section's items (bench/generation.py).
#: "in", "of", "on", "at", "with", "by" are left out: they follow plural nouns too often.
_MOTION_AFTER_A_VERB: Final = _words(
    "across from into through towards toward along past down away back around fastest slowest"
)


def _verb_in_s(word: str, words: Sequence[tuple[int, int, str]], next_index: int) -> bool:
    """True when `word` (the last of a lower-case run) reads as a verb in -s by what follows.
    Keys like "water flows" and "river swings" came from this (bench/generation.py, issue 26)."""
    lowered = word.casefold()
    if not lowered.endswith("s") or lowered.endswith(("ss", "us", "is")):
        return False
    if next_index >= len(words):
        return False
    following = words[next_index][2].casefold()
    return (
        following.endswith("ly")
        or following in _AFTER_A_VERB
        or following in _MOTION_AFTER_A_VERB
        or following[:1].isdigit()
    )


def _noun_phrases(sentence: str, frequency: Counter[str]) -> list[tuple[int, int, float]]:
    """(start, end, score bonus) of lower-case noun-phrase-like runs, at most 4 words."""
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence)]
    found: list[tuple[int, int, float]] = []
    i = 0
    while i < len(words):
        run: list[int] = []
        j = i
        while j < len(words):
            word = words[j][2]
            lowered = word.casefold()
            joined = not run or sentence[words[j - 1][1] : words[j][0]].strip() == ""
            if (
                not joined
                or not word[:1].islower()
                or lowered in STOPWORDS
                or lowered in COMMON_VERBS
                or lowered.endswith("ly")
                or not re.fullmatch(r"[^\W\d_][^\W\d_'’-]*", lowered.strip("-"))
            ):
                break
            run.append(j)
            j += 1
        if not run:
            i += 1
            continue
        i = j
        # The head (last word) must look like a noun; drop trailing verb/adjective look-alikes.
        while run and not _looks_like_noun(words[run[-1]][2]):
            run.pop()
        # A leading participle without a determiner is usually a verb: "also cited interest".
        while (
            run
            and run[0] > 0
            and words[run[0] - 1][2].casefold() not in _DETERMINERS
            and (words[run[0]][2].endswith(("ed", "ing")))
        ):
            run.pop(0)
        run = run[-4:]
        if len(run) > 1 and _verb_in_s(words[run[-1]][2], words, run[-1] + 1):
            run.pop()  # "the water flows quickly": the head is the verb, "water" the noun
        if not run:
            continue
        after = words[run[-1] + 1] if run[-1] + 1 < len(words) else None
        if (
            after is not None
            and _is_capitalised(after[2])
            and sentence[words[run[-1]][1] : after[0]].strip() == ""
        ):
            continue  # a modifier of a name ("the current King"), not a phrase of its own
        previous = words[run[0] - 1][2].casefold() if run[0] > 0 else ""
        introduced = previous in _DETERMINERS or previous.endswith(("'s", "’s"))
        stems = [_stem(words[r][2].casefold()) for r in run]
        recurring = max(frequency[s] for s in stems)
        if not introduced and recurring < 2:
            continue
        if len(run) == 1 and len(words[run[0]][2]) < 4:
            continue  # "war", "act": too short alone to be a good key phrase
        # Key terms repeat: weight by how often the head and its modifiers recur, capped.
        bonus = min(0.3, 0.06 * (sum(frequency[s] for s in stems) / len(stems) - 1))
        bonus += 0.04 * (len(run) - 1)
        found.append((words[run[0]][0], words[run[-1]][1], bonus))
    return found
