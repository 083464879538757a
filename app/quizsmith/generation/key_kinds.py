"""The kind of thing a key is, where no question names one: "What is the scientific name of
the western honey bee?" names no kind, and its wrong answers were "royal jelly; queen;
queens" on the generation bench, read bad. The QA model says what kind of thing the key is
("a species"), and where it affirms that of the key, each wrong answer is checked as for a
kind a question names ("Is royal jelly a species?", `distractor_kinds.first_that_pass`), and
the generator is told it.

Why the model and not the parser: the key's head noun is no kind ("pentameter",
"mellifera"); what the thing *is* is a matter of knowledge. Measured on 605 wrong answers the
1.5B model wrote, read blind (studies/key_kinds.py): of those it applies to, 36% of another
kind dropped, 8% of the key's. Weaker than a named kind's check: "Is Punk a movement?" reads
Yes (the bench's "Punk; Jazz; Classic" for what a critic called the Impressionists).
"""

from __future__ import annotations

from quizsmith.errors import CapabilityError
from quizsmith.generation.distractor_kinds import NO_KIND, kind_reading
from quizsmith.providers.base import Fixed, Provider

#: Four general-knowledge examples written for the project (a person by their work, a place,
#: a process, a tissue; abrasion is a term of the bench's rivers passage too, and the
#: questions are not the bench's), tried on 13 of the bench's keys before any case of the
#: study was read, and measured as they stand.
KIND_PROMPT = """Say what kind of thing the answer to each question is, in one or two words.

Question: Who wrote the play Antigone?
Answer: Sophocles
Kind: playwright

Question: Which river flows through Cairo?
Answer: the Nile
Kind: river

Question: What wears away a river bed as stones scrape along it?
Answer: abrasion
Kind: process

Question: What is the hard outer layer of a tooth called?
Answer: enamel
Kind: tissue

"""
#: Kinds that ask nothing of a wrong answer ("Is quintet a term?": any phrase is one), beside
#: those a question's noun asks nothing with (`distractor_kinds.NO_KIND`).
_EMPTY_KINDS = frozenset({"term", "word", "phrase", "answer", "concept", "idea"})
_ARTICLES = ("a ", "an ", "the ")
#: The kind the model gives a key is used only where it also answers Yes to "Is <key> a
#: <kind>?" (log-odds at least this): a kind it does not affirm of the key itself is
#: doubtful ("monastery" for "small rooms", -1.2). Chosen on the study's first set (the
#: standard bench's and SQuAD items: wrong answers of the key's kind dropped 17% -> 8%, of
#: another kind 42% -> 36%), checked on its second (mostly the light bench's items, read
#: after the choice: 24% -> 17% and 46% -> 42%; studies/key_kinds.py).
KEY_AFFIRMS_KIND = 0.0


def kind_of_key(qa: Provider, question: str, key: str) -> str | None:
    """The kind of thing the QA model says `key` is as the answer to `question`
    (`said_kind`), where it also affirms it of the key (KEY_AFFIRMS_KIND); else None."""
    kind = said_kind(qa, question, key)
    if kind is None or kind_reading(qa, kind).says_yes(key) < KEY_AFFIRMS_KIND:
        return None
    return kind


def said_kind(qa: Provider, question: str, key: str) -> str | None:
    """The QA model's word for what kind of thing `key` is as the answer to `question`
    (greedy, a few tokens; the examples' head is the same for every key, so its state is
    reused), or None where it says nothing a wrong answer could be checked against: a kind
    that asks nothing ("term"), one naming the key, or no word at all; or where the model
    cannot complete a prompt (an API chat model)."""
    if not qa.can_complete:
        return None
    try:
        reply = qa.complete(
            f"{KIND_PROMPT}Question: {question}\nAnswer: {key}\nKind:",
            max_tokens=8,
            stop=["\n"],
            reuse_prefix=Fixed(KIND_PROMPT),
        ).text
    except CapabilityError:
        return None  # a server that serves chat only: no kind, as without completion
    kind = " ".join(reply.split()).strip(" .").lower()
    for article in _ARTICLES:
        kind = kind.removeprefix(article)
    words = kind.split()
    if not words or len(words) > 3 or not all(w.replace("-", "").isalpha() for w in words):
        return None
    if words[-1] in NO_KIND or words[-1] in _EMPTY_KINDS:
        return None
    if any(w in key.casefold().split() for w in words):
        return None  # "sonnet" for "Petrarchan sonnet": the key is asked by its own word
    return kind
