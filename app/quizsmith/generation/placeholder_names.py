"""Names a model makes up when it knows no real one: "John Smith", "Jane Doe", "Peter Brown".

Asked for wrong answers to "Who was captured in Nyeri?", the 1.5B model wrote five such names
on every seed tried, though its prompt forbids placeholders (docs/generation.md), and they
pass every other filter: they are people, and the QA model finds "John Smith" as plausible a
captive as the key. A student rules them out at a glance. Real people of the topic (the
passage's own names, which join the candidates) are the wrong answers to offer instead.

Written by hand, not taken from a name database: what is wanted is the short list of names a
model reaches for as a placeholder, the commonest English given names and surnames, not every
name. The cost of the rule is a real person with such a name ("James Brown") offered where the
passage does not mention him; it is dropped like an invented one.
"""

from __future__ import annotations

from quizsmith.metrics.squad import normalize_answer

_GIVEN = frozenset(
    [
        "john",
        "jane",
        "james",
        "mary",
        "robert",
        "michael",
        "william",
        "david",
        "richard",
        "joseph",
        "thomas",
        "charles",
        "peter",
        "paul",
        "mark",
        "tom",
        "mike",
        "bob",
        "jim",
        "jack",
        "sarah",
        "emily",
        "emma",
        "anna",
        "alice",
        "laura",
        "lisa",
        "linda",
        "susan",
        "karen",
        "jennifer",
        "jessica",
        "maria",
        "diana",
        "kevin",
        "brian",
        "steven",
        "daniel",
        "matthew",
        "chris",
        "kate",
        "sam",
        "alex",
        "adam",
        "olivia",
        "sophia",
        "rachel",
        "amy",
        "anne",
        "jake",
        "ben",
        "lucy",
        "sophie",
    ]
)
_SURNAMES = frozenset(
    [
        "doe",
        "roe",
        "smith",
        "johnson",
        "williams",
        "brown",
        "jones",
        "miller",
        "davis",
        "wilson",
        "taylor",
        "anderson",
        "white",
        "harris",
        "clark",
        "lewis",
        "walker",
        "hall",
        "allen",
        "parker",
        "green",
        "baker",
        "evans",
        "turner",
        "moore",
        "thompson",
        "garcia",
        "martinez",
        "rodriguez",
    ]
)


#: Informal short forms of given names. Alone, one is a placeholder too: for "who is trying to
#: stop Antigone ...?" (key Creon) the 1.5B model offered "Percy", "Tom" and "Mike"
#: (generation-readings-6f607a1.txt, git history). Full given names alone are not dropped:
#: "Peter", "Paul" and "Thomas" are real answers where the topic is the apostles.
_SHORT_FORMS = frozenset(
    [
        "tom",
        "mike",
        "bob",
        "jim",
        "jake",
        "ben",
        "sam",
        "alex",
        "chris",
        "kate",
        "joe",
        "dave",
        "steve",
        "nick",
        "tim",
        "dan",
        "matt",
        "andy",
        "bill",
        "jenny",
        "katie",
        "sue",
        "liz",
    ]
)


#: More given names the 1.5B model offered alone as a person's wrong answers ("Percy", "John",
#: "Sally" as Creon's rivals, generation-readings-56c637b.txt, git history): with _GIVEN and
#: _SHORT_FORMS, the names `invented_name` treats as placeholders beside a key of another sort.
_MORE_GIVEN = frozenset(
    ["percy", "sally", "harry", "george", "henry", "fred", "lily", "grace", "molly", "max"]
)
_ANY_GIVEN = _GIVEN | _SHORT_FORMS | _MORE_GIVEN


def invented_name(candidate: str, passage: str, key: str = "") -> bool:
    """True for the model's placeholder, not a person of the topic, where the passage never
    mentions it: a two-word name of a common given name and a common surname ("John Smith"),
    an informal short form alone ("Mike"), or a common English given name alone where the key
    is a one-word name that is not one ("Percy" for Creon: a student rules it out beside
    Oedipus). Beside a key that is one ("Peter", an apostle) a lone given name may be a real
    wrong answer ("John", "Thomas"), so it stays."""
    words = normalize_answer(candidate).split()
    two_word = len(words) == 2 and words[0] in _GIVEN and words[1] in _SURNAMES
    short_form = len(words) == 1 and words[0] in _SHORT_FORMS
    key_words = normalize_answer(key).split()
    other_sort = len(key_words) == 1 and key[:1].isupper() and key_words[0] not in _ANY_GIVEN
    lone_given = len(words) == 1 and words[0] in _ANY_GIVEN and other_sort
    if not (two_word or short_form or lone_given):
        return False
    return f" {' '.join(words)} " not in f" {normalize_answer(passage)} "
