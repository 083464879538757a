"""The passage's own words as wrong answers: the terms it defines and the members of the lists
it names beside the key.

A teacher's wrong answers for "What is the movement of pebbles in short hops called?" are the
passage's other terms (traction, suspension), and for a member of a list ("erosion,
transportation and deposition") the list's other members. The targets chosen for a quiz gave
only a few of these: on bench/generation.py's textbook section the same-passage candidates
were "meanders", "erosion" and "river floods", and the model filled the rest with words no
student weighs ("jumping", "winding"; generation-readings-d71cd03.txt, git history).

Lists are read by rule, not by a parser: members of one to three words (a capitalised name
at a list's end up to five), separated by commas,
the last after "and" or "or", or two joined by a bare "and" (`list_siblings`). Its limits: a
verb can pass for a member where nothing marks it ("the river floods ... and drops its
sediment": "drops"), and the last member's end is guessed where no comma closes it: cut to
the others' length ("deltas look the way": "deltas"), left out where the cut falls inside a
phrase ("a melting glacier high in the hills"), and a pair whose second member runs on is no
list. Every sibling still goes through the distractor filters, the QA model's "also true"
and kind checks included.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from typing import Final

from quizsmith.generation.answer_kinds import kind_of
from quizsmith.generation.target_words import COMMON_VERBS, PRONOUNS, STOPWORDS
from quizsmith.metrics.squad import normalize_answer

#: Words a list member is made of at most: longer runs are clauses, not names of things.
MAX_MEMBER_WORDS: Final = 3
#: A name may be longer where it ends a list: "St Andrew's College and Rangi Ruru Girls'
#: School in Christchurch" (its capitalised words mark where it ends).
NAME_MEMBER_WORDS: Final = 5
_ARTICLES: Final = frozenset(["a", "an", "the"])
#: "of" joins a member's words ("the Bay of Bengal"); the other stopwords end a member.
_INSIDE_MEMBER: Final = frozenset(["of"])
_CONJUNCTIONS: Final = frozenset(["and", "or"])
_TOKEN: Final = re.compile(r"[\w'’-]+|[^\w\s]")


def list_siblings(lists: Iterable[Sequence[str]], key: str) -> list[str]:
    """The other members of every list (`passage_lists`) that has the key as a member
    ("erosion, transportation and deposition": for "erosion", transportation and deposition),
    in the passage's order, without articles, each once."""
    key_norm = normalize_answer(key)
    if not key_norm:
        return []
    found: list[str] = []
    for members in lists:
        norms = [normalize_answer(m) for m in members]
        if key_norm not in norms:
            continue
        for member, norm in zip(members, norms, strict=True):
            if norm != key_norm and member not in found:
                found.append(member)
    return found


def sentence_siblings(sentence: str, key: str) -> list[str]:
    """The key's fellow members in the lists of its own sentence (`list_siblings`): what
    that sentence says of the key it says of them too, so a question from it cannot single
    the key out ("Michael Faraday and James Clerk Maxwell demonstrated ...")."""
    return list_siblings(passage_lists(sentence), key)


def same_passage_candidates(
    key: str, siblings: Sequence[str], others: Iterable[str], rng: random.Random
) -> list[str]:
    """The passage's own words as wrong answers for the key: its list siblings in the
    passage's order, then the passage's other answers and defined terms (`others`) shuffled,
    each once, neither the key nor a sibling again (or the evidence would list duplicates the
    builder made itself)."""
    rest = [w for w in dict.fromkeys(others) if w != key and w not in siblings]
    rng.shuffle(rest)
    return [*siblings, *rest]


def passage_lists(passage: str) -> list[list[str]]:
    """Every list the passage names: ["erosion", "transportation", "deposition"] for "...
    as erosion, transportation and deposition, and ...". Three or more members where commas
    separate them; two only where a bare "and"/"or" joins them ("sand and gravel")."""
    lists: list[list[str]] = []
    for clause in re.split(r"[.;:!?()\n]+", passage):
        lists.extend(_lists_in(_TOKEN.findall(clause)))
    return lists


def _lists_in(tokens: Sequence[str]) -> list[list[str]]:
    # Segments between separators: a comma, "and", "or" (", and" counts as one separator).
    segments: list[list[str]] = [[]]
    separators: list[str] = []
    for token in tokens:
        lowered = token.lower()
        if token == ",":
            segments.append([])
            separators.append(",")
        elif lowered in _CONJUNCTIONS:
            if separators and separators[-1] == "," and not segments[-1]:
                separators[-1] = ", and"  # "X, Y, and Z": one separator
            else:
                segments.append([])
                separators.append("and")
        else:
            segments[-1].append(token)
    lists: list[list[str]] = []
    start = 0
    # A list ends at its first "and"/"or": it runs from the earliest segment joined to it by
    # commas alone.
    for index, sep in enumerate(separators):
        if sep == ",":
            continue
        first = index
        while first > start and separators[first - 1] == ",":
            first -= 1
        # The earliest start that reads as a list: "which is often a spring, a lake or a
        # melting glacier" is no member, "spring" of it is; last, two joined by a bare "and"
        # ("the water is slow, so sand and gravel are dropped": "sand and gravel").
        members: list[str] = []
        for begin in range(first, index + 1):
            if begin == index and sep != "and":
                break
            members = _members(segments[begin : index + 2], comma_and=sep == ", and")
            if members:
                break
        if members:
            lists.append(members)
        start = index + 1
    return lists


def _members(segments: Sequence[list[str]], *, comma_and: bool) -> list[str]:
    """The members of segments S1, ..., Sk joined by commas and a last "and": S1's last words
    (its first words lead in: "three jobs as erosion"), S2 ... Sk-1 whole, Sk's first words
    (it runs on: "deposition" of "deposition, and together ..." is already cut at the
    comma; "the Nile all end in deltas": "Nile")."""
    if len(segments) < 2 or (len(segments) == 2 and comma_and):
        return []
    head = _trailing_member(segments[0])
    middle = [_whole_member(s) for s in segments[1:-1]]
    # Members run parallel: the last is cut to the longest of the others ("valleys,
    # waterfalls, meanders and deltas look the way ...": "deltas"); a name stays whole
    # ("Auckland, Scots College and Queen Margaret College"). Two members are weaker
    # evidence of a list: one that runs on is a clause, and the pair is none ("Cost
    # engineers and estimators apply expertise": not "estimators apply").
    longest = max(len(m) for m in [head, *middle])
    if not longest:
        # Nothing before the "and" reads as a member ("both for students and parents",
        # '"Southern Bird Island") , also known as ...'): no list, and nothing to cut the
        # last member to (it had raised IndexError on 29 of QGEval's 200 passages).
        return []
    tail = _leading_member(segments[-1])
    parts = [head, *middle, tail]
    if kind_of(" ".join(tail)) != "name" and len(tail) > longest:
        if not middle:
            return []
        tail = tail[:longest]
        # Cut inside a phrase ("or a melting glacier high in the hills": "melting"): the
        # list keeps its other members.
        parts = [head, *middle] if tail[-1].endswith("ing") else [head, *middle, tail]
    members = [" ".join(m) for m in parts]
    if any(not m or _verb_form(m) for m in members):
        return []
    if not middle and kind_of(members[0]) != kind_of(members[1]):
        return []  # "Mau Mau and essentially ended": a name and a phrase are no list
    return members


def _verb_form(member: str) -> bool:
    """ "essentially ended", "continued": a lower-case member ending in -ed is a verb or an
    adjective, not a thing."""
    last = member.split()[-1]
    return last.islower() and len(last) > 4 and last.endswith("ed")


def _content(word: str) -> bool:
    lowered = word.lower()
    return (
        (word.isalpha() or "-" in word or "'" in word or "’" in word or word.isdigit())
        and lowered not in STOPWORDS
        and lowered not in PRONOUNS
        and lowered not in COMMON_VERBS
    )


def _without_article(words: list[str]) -> list[str]:
    return words[1:] if words and words[0].lower() in _ARTICLES else words


def _whole_member(words: list[str]) -> list[str]:
    words = _without_article(words)
    ok = 0 < len(words) <= MAX_MEMBER_WORDS and all(
        _content(w) or (w.lower() in _INSIDE_MEMBER and 0 < i < len(words) - 1)
        for i, w in enumerate(words)
    )
    return words if ok else []


def _trailing_member(words: list[str]) -> list[str]:
    run: list[str] = []
    for word in reversed(words):
        if not _content(word) or len(run) == MAX_MEMBER_WORDS:
            break
        run.insert(0, word)
    # As in `_leading_member`: a run that reaches the limit with more content before it is
    # the end of a clause ("wears away rock").
    before = words[: len(words) - len(run)]
    if len(run) == MAX_MEMBER_WORDS and before and _content(before[-1]):
        return []
    return run


def _is_name(words: list[str]) -> bool:
    return all(w[:1].isupper() or w in _INSIDE_MEMBER for w in words)


def _leading_member(words: list[str]) -> list[str]:
    run: list[str] = []
    for word in _without_article(words):
        if run and word.islower() and word not in _INSIDE_MEMBER and _is_name(run):
            # A name ends where lower-case words begin: "Michael Faraday and James Clerk
            # Maxwell demonstrated ...": "James Clerk Maxwell", not a clause.
            return run
        limit = NAME_MEMBER_WORDS if run and _is_name([*run, word]) else MAX_MEMBER_WORDS
        if not _content(word) or len(run) >= limit:
            break
        run.append(word)
    # A member that runs on past the word limit is the start of a clause, not a name.
    rest = _without_article(words)[len(run) :]
    if len(run) >= MAX_MEMBER_WORDS and rest and _content(rest[0]):
        return []
    return run
