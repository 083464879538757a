"""The passage analysis (spaCy): constituents, lists, terms, kinds, web marks; and the
targets and wrong answers built on it. Passages written for these tests (issue 44's cases,
reworded)."""

from __future__ import annotations

import random

import pytest

from quizsmith.generation import distractors as dis
from quizsmith.generation.analysis import analyse, parse_phrase, same_kind
from quizsmith.generation.constituent_targets import concept_targets, passage_targets
from quizsmith.generation.web_marks import masked
from quizsmith.generation.writer import stem_problem
from quizsmith.generation.wrong_answer_sets import unlike_the_key

WEB_PASTE = (
    "The Manicouagan crater is an impact structure in Quebec, Canada.[3] It formed about "
    "214 million years ago when an asteroid struck the Canadian Shield.[4][5] Enzymes are "
    "proteins that speed up reactions in a cell.: 8.1 Most donors gave less than a dollar, "
    "equivalent to $29 in 2020.[citation needed]"
)

RIVERS = (
    "How Rivers Shape the Land\n\n"
    "Rivers shape the land through three processes called erosion, transportation and "
    "deposition. Pebbles move along the bed in short hops known as saltation. The statue was "
    "shown at the Centennial Exhibition in Boston and later in Union Square Park. Creon, the "
    "King of Thebes, forbade the burial."
)


def _texts(analysis):
    return [c.text for c in analysis.constituents]


def test_masking_keeps_every_offset():
    clean = masked(WEB_PASTE)
    assert len(clean) == len(WEB_PASTE)
    assert "[3]" not in clean and "[citation needed]" not in clean and ": 8.1" not in clean
    assert "Quebec, Canada." in clean and "$29 in 2020." in clean
    assert masked("History[edit]\n\nIt rained.") == "History      \n\nIt rained."
    # Wikipedia's cleanup tags go; an editor's own words in brackets are text.
    tagged = "It prints 2 metres as of January 2013[update], later[when?] more.[dubious – discuss]"
    assert len(masked(tagged)) == len(tagged)
    assert masked(tagged).split()[6:] == ["January", "2013", ",", "later", "more."]
    assert masked("[She] said [i.e. Nicholas I] came.") == "[She] said [i.e. Nicholas I] came."
    guide = "Chicxulub (/ˈtʃiːkʃuluːb/ CHEEK-shoo-loob) is a crater."
    assert masked(guide).split() == ["Chicxulub", "is", "a", "crater."]


def test_citation_marks_and_page_references_are_never_answers():
    analysis = analyse(WEB_PASTE)
    texts = _texts(analysis)
    assert not any("[" in t or "8.1" in t for t in texts)
    assert "$29" in texts  # a sum with its currency
    assert "less than a dollar" not in texts  # no value to ask for
    for c in analysis.constituents:
        assert WEB_PASTE[c.start : c.end] == c.text


def test_targets_are_whole_constituents_of_fact_sentences():
    analysis = analyse(RIVERS)
    targets = passage_targets(analysis)
    answers = {t.answer for t in targets}
    assert {"erosion", "saltation", "Union Square Park", "Creon"} <= answers
    # The heading states nothing: no target comes from it.
    assert analysis.is_fact[0] is False
    assert all(t.sentence_index != 0 for t in targets)
    for t in targets:
        assert RIVERS[t.answer_start : t.answer_start + len(t.answer)] == t.answer
        assert t.fact_start <= t.answer_start and t.answer_end <= t.fact_end
    # A cut through a clause is no constituent, so a model's concept of that shape gives none.
    assert concept_targets(analysis, ["land through three", "saltation"])[0].answer == "saltation"
    assert len(concept_targets(analysis, ["land through three"])) == 0


def test_lists_terms_and_appositions_come_from_the_parse():
    analysis = analyse(RIVERS)
    assert ["erosion", "transportation", "deposition"] in analysis.lists
    assert analysis.siblings("erosion") == ["transportation", "deposition"]
    assert analysis.terms["saltation"] == "hop"
    assert "saltation" in analysis.terms and "erosion" in analysis.terms
    assert "King of Thebes" in analysis.aliases["creon"]


def test_kinds_of_short_texts():
    park = analyse(RIVERS).find("Union Square Park")
    assert park is not None and park.group == "name:place"
    assert same_kind(park, parse_phrase("Central Park"))
    assert not same_kind(park, parse_phrase("a bird")) and not same_kind(park, parse_phrase("1990"))
    assert not same_kind(park, parse_phrase("decrease enzyme activity"))  # a clause
    miles = parse_phrase("1,200 miles")
    assert miles is not None and miles.group == "number:mile"
    assert not same_kind(miles, parse_phrase("1,200 years"))


def test_wrong_answers_of_another_kind_or_form_are_dropped():
    passage = (
        "The telescope cost 5,000 dollars in 1990. Its mirror was ground in Rochester by "
        "Ada Lowe, a glassmaker."
    )
    analysis = analyse(passage)
    outcome = dis.filter_distractors(
        "5,000 dollars",
        ["100000 dollars", "7,500 dollars", "a bird", "Rochester"],
        embed=None,
        reader=None,
        analysis=analysis,
    )
    kept = outcome.kept
    assert kept == ["7,500 dollars"]
    reasons = dict(outcome.dropped)
    assert "grouped otherwise" in reasons["100000 dollars"]
    assert "kind" in reasons["a bird"]


def test_the_passage_gives_wrong_answers_of_the_key_kind_first():
    passage = (
        "Paris, Lyon and Marseille are the largest cities of France. Victor Hugo wrote in "
        "Paris in 1831, and Emile Zola in 1880."
    )
    pool = dis.same_passage_candidates(analyse(passage), "Lyon", random.Random(0))
    assert pool[:2] == ["Paris", "Marseille"]
    assert "Victor Hugo" not in pool and "1831" not in pool


@pytest.mark.parametrize(
    "stem",
    [
        "Which volcanic feature is mentioned in the fact as a cause?",
        "According to the passage, what did the drill reach?",
        "What does the text say the drill reached?",
    ],
)
def test_a_stem_that_speaks_of_its_source_is_refused(stem):
    assert "source" in stem_problem(stem, "peak ring", "The drill reached the peak ring.")


def test_every_parse_goes_through_the_locked_parser() -> None:
    """The shared spaCy pipeline is not made for two threads at once (the editor's read-ahead
    and a generation job run together): outside generation/parser.py no module calls it or
    its tokenizer directly."""
    import re
    from pathlib import Path

    import quizsmith

    direct = re.compile(r"pipeline\(\)\s*(?:\(|\.pipe\(|\.tokenizer\()")
    package = Path(quizsmith.__file__).parent
    offenders = [
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if path.name != "parser.py" and direct.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


RAINFALL = (
    "The Atacama is one of the driest places on Earth. Most of the desert gets less than "
    "15 millimetres of rain a year, and some weather stations have never recorded any. "
    "Group 2 elements are the alkaline earth metals. Between about 9,000 and 4,000 years "
    "ago the region was wetter."
)


def test_a_number_takes_the_noun_it_counts_but_not_a_noun_it_names():
    texts = _texts(analyse(RAINFALL))
    # The entity stops at the number ("less than 15"); the parser says 15 counts millimetres.
    assert "15 millimetres" in texts and "15" not in texts
    # "Group 2 elements": the number names the group, it counts no elements.
    assert "2 elements" not in texts
    # A conjunction the entity ended on is no part of the number.
    assert not any(t.endswith(" and") for t in texts)


def test_a_number_does_not_end_on_the_to_of_a_range():
    # The parser's entity is "about 1.2 to" (CARDINAL): the "to" joins the range's ends.
    texts = _texts(analyse("Adults are about 1.2 to 1.9 metres long."))
    assert not any(t.endswith(" to") for t in texts)
    assert "1.9 metres" in texts


def test_a_models_answer_may_be_the_whole_phrase_with_its_qualifier():
    from quizsmith.generation.constituent_targets import followed_target

    analysis = analyse(RAINFALL)
    target = next(t for t in passage_targets(analysis) if t.answer == "15 millimetres")
    followed = followed_target(analysis, target, "less than 15 millimetres", set())
    assert followed is not None
    assert (followed.answer, followed.kind) == ("less than 15 millimetres", "number")
    start = followed.answer_start
    assert RAINFALL[start : start + len(followed.answer)] == followed.answer
    # A cut through the clause is no phrase of the sentence; a key already asked is not taken.
    assert followed_target(analysis, target, "gets less", set()) is None
    assert (
        followed_target(analysis, target, "less than 15 millimetres", {"less than 15 millimetres"})
        is None
    )


def test_a_number_takes_its_unit_across_a_web_pages_no_break_space():
    # The entity stops at "roughly 2,850" (CARDINAL); the parser says 2,850 counts "km".
    text = "It is, at roughly 2,850\xa0km (1,770\xa0mi), the second-longest river there."
    texts = _texts(analyse(text))
    assert "2,850\xa0km" in texts and "2,850" not in texts


ORCHESTRA = (
    "By 1900 the orchestra had recorded 14 complete operas and 6 violin concertos. "
    "Its hall held twelve and eleven boxes on its two sides. "
    "The choir sang at the One Voice festival."
)


def test_a_number_takes_the_noun_it_counts_across_the_nouns_modifiers():
    texts = _texts(analyse(ORCHESTRA))
    # The parser says 14 counts "operas" and 6 "concertos", with their modifiers between.
    assert "14 complete operas" in texts and "6 violin concertos" in texts
    assert "14" not in texts and "6" not in texts
    # A conjunction between: "twelve" counts nothing of its own in "twelve and eleven boxes".
    assert not any(t.startswith("twelve and") for t in texts)
    # A proper noun is a name's part, not a counted noun.
    assert "One Voice festival" not in texts and "One Voice" not in texts


def test_a_count_keeps_the_form_of_its_key():
    key = analyse(ORCHESTRA).find("14 complete operas")
    assert key is not None and key.group == "number:opera"
    assert same_kind(key, parse_phrase("9 operas"))
    # A bare count beside a key with its noun is the odd one out by its form, and so is a
    # count with a noun beside a bare key.
    assert not same_kind(key, parse_phrase("32"))
    bare = parse_phrase("14")
    assert bare is not None and same_kind(bare, parse_phrase("30"))
    assert not same_kind(bare, parse_phrase("63 elements"))


def test_a_models_bare_count_follows_the_passages_number_with_its_noun():
    from quizsmith.generation.constituent_targets import followed_target

    analysis = analyse(ORCHESTRA)
    target = next(t for t in passage_targets(analysis) if t.answer == "6 violin concertos")
    followed = followed_target(analysis, target, "14", set())
    assert followed is not None and followed.answer == "14 complete operas"
    start = followed.answer_start
    assert ORCHESTRA[start : start + len(followed.answer)] == followed.answer
    assert followed_target(analysis, target, "14", {"14 complete operas"}) is None


def test_a_phrase_key_gets_the_passage_phrases_of_its_head_noun_only():
    # Any noun phrase of the passage is a phrase: "Heavy snowstorms" and "snow" came as wrong
    # answers for the feature that blocks moist air, key mountain
    # (studies/phrase_wrong_answers.py).
    passage = (
        "Rivers deepen their valleys by vertical erosion. On the outside of a bend, lateral "
        "erosion widens the valley floor. Most geologists study these rivers in the field."
    )
    analysis = analyse(passage)
    pool = dis.same_passage_candidates(analysis, "lateral erosion", random.Random(0))
    assert "vertical erosion" in pool
    assert not {"Most geologists", "the valley floor", "the field"} & set(pool)


def test_a_phrase_keys_other_answers_and_terms_of_another_kind_stand_in_last():
    # The quiz's other answers and the defined terms joined whatever their kind ("Most
    # geologists" among a plate's materials); of 220 read on SQuAD passages, 82% were of
    # another kind (studies/other_answers_kind.py). Another answer with the key's head noun
    # or the noun the passage calls the key is alike; a term the passage defines is alike to
    # its other terms; a name key is not judged here (its kind filter reads entity types).
    passage = (
        "The river carries sand by a process called traction. Fine silt moves by a process "
        "called suspension. Bends known as meanders form in the lower course. Most geologists "
        "study this in the field. Charles Lyell wrote about rivers."
    )
    analysis = analyse(passage)
    assert unlike_the_key(analysis, "sand", ["Most geologists"])
    assert unlike_the_key(analysis, "sand", ["meanders"])
    assert not unlike_the_key(analysis, "sand", ["fine sand"])
    assert not unlike_the_key(analysis, "traction", ["suspension"])  # both processes
    assert not unlike_the_key(analysis, "traction", ["meanders"])  # both terms it defines
    assert unlike_the_key(analysis, "traction", ["the lower course"])
    assert not unlike_the_key(analysis, "Charles Lyell", ["Most geologists"])
    # A name the parser reads as a plain phrase in one sentence and as a name in another is
    # a name: Joseph Haydn stays beside Beethoven (generation bench, arts_web_beethoven).
    composers = analyse(
        "Beethoven wrote nine symphonies. Composer Ludwig van Beethoven studied with Joseph "
        "Haydn, and Beethoven admired Mozart."
    )
    named_twice = [c.kind for c in composers.constituents if c.text == "Beethoven"]
    assert "name" in named_twice
    assert not unlike_the_key(composers, "Beethoven", ["Joseph Haydn"])
    # In the filter they stand in only where the others fall short.
    for wanted, kept in (
        (2, ["saltation", "suspension"]),
        (3, ["saltation", "suspension", "Most geologists"]),
    ):
        outcome = dis.filter_distractors(
            "traction",
            ["Most geologists", "saltation", "suspension"],
            embed=None,
            reader=None,
            config=dis.FilterConfig(wanted=wanted),
            last=["Most geologists"],
        )
        assert outcome.kept == kept


@pytest.mark.parametrize(
    ("sentence", "name", "other"),
    [
        # The parser hangs "as" on "in Spain"; the participle still names him.
        (
            "The painter Domenikos Theotokopoulos, known in Spain as El Greco, worked in Toledo.",
            "domenikos theotokopoulos",
            "El Greco",
        ),
        (
            "Lake Baikal, also known as the Sacred Sea, is the deepest lake in the world.",
            "lake baikal",
            "Sacred Sea",
        ),
    ],
)
def test_a_name_that_a_participle_gives_another_name_has_it_as_an_alias(
    sentence: str, name: str, other: str
) -> None:
    aliases = analyse(sentence).aliases
    assert other in aliases[name]
    assert [a.casefold() for a in aliases[other.casefold()]] == [name]


def test_a_term_a_common_noun_is_known_as_is_no_other_name_of_it() -> None:
    analysis = analyse("Rivers cut wide bends known as meanders into the plain.")
    assert "meanders" in analysis.terms
    assert analysis.aliases == {}


def test_another_name_the_passage_gives_the_key_is_no_wrong_answer() -> None:
    text = "The painter Domenikos Theotokopoulos, known in Spain as El Greco, worked in Toledo."
    outcome = dis.filter_distractors(
        "Domenikos Theotokopoulos",
        ["El Greco", "Diego Velázquez", "Francisco Goya", "Bartolomé Murillo"],
        embed=None,
        reader=None,
        aliases=analyse(text).aliases["domenikos theotokopoulos"],
    )
    assert ("El Greco", "another name the passage gives the key (also right)") in outcome.dropped
    assert "Diego Velázquez" in outcome.kept


def test_one_of_a_group_is_no_number_but_a_count_of_a_group_is() -> None:
    analysis = analyse(
        "One of the oldest maps of the world was drawn on clay. Three of the moons of Mars "
        "were found in one year."
    )
    kinds = {c.text: c.kind for c in analysis.constituents}
    assert "One" not in kinds and kinds["oldest maps"] == "phrase"
    assert kinds["Three"] == "number"
    assert kinds["one year"] == "date"  # "one" counting a noun stays


def test_a_name_that_possesses_a_thing_is_the_name_without_its_possessive() -> None:
    analysis = analyse(
        "Claude Monet's garden at Giverny drew many painters to the village. In 2011 the "
        "agency Moody's lowered its rating of the bank."
    )
    names = {c.text for c in analysis.constituents if c.kind == "name"}
    assert "Claude Monet" in names and "Claude Monet's" not in names
    assert "Moody's" in names  # its "'s" possesses nothing: part of the name
