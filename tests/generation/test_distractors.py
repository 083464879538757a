"""Distractor filters and candidate sources, on hand-made inputs (no model)."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest

from quizsmith.generation import distractors as dis
from quizsmith.generation.placeholder_names import invented_name


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1963", "year"),
        ("the 1990s", "year"),
        ("14 July 1789", "date"),
        ("3.5 million", "number"),
        ("42%", "number"),
        ("Millard Sheets", "name"),
        ("University of Notre Dame", "name"),
        ("her conscience", "phrase"),
    ],
)
def test_kind_of(text: str, kind: str) -> None:
    assert dis.kind_of(text) == kind


def test_a_percentage_of_at_most_100_keeps_its_variants_at_most_100() -> None:
    """ "about 204 %" for "about 68 %" (a share of values) was a wrong answer no student
    weighs; a percentage over 100 (an increase) may still grow."""
    for answer in ["about 68\u00a0%", "94.8 percent", "80-percent", "100 per cent", "65%"]:
        for seed in range(20):
            variants = dis.numeric_variants(answer, random.Random(seed))
            assert variants
            values = [float(re.findall(r"\d+(?:\.\d+)?", v)[0]) for v in variants]
            assert all(value <= 100 for value in values), (answer, variants)
    grown = {v for seed in range(20) for v in dis.numeric_variants("150%", random.Random(seed))}
    assert any(float(v.rstrip("%")) > 150 for v in grown)


def test_numeric_variants_keep_format_and_differ() -> None:
    rng = random.Random(1)
    years = dis.numeric_variants("1963", rng)
    assert len(years) == 4 and "1963" not in years
    assert all(len(y) == 4 and y.isdigit() and 1000 <= int(y) <= 2100 for y in years)
    money = dis.numeric_variants("3.5 million", random.Random(2))
    assert money and all(m.endswith(" million") and "." in m for m in money)
    commas = dis.numeric_variants("1,200 km", random.Random(3))
    assert commas and all(c.endswith(" km") for c in commas)
    assert dis.numeric_variants("Millard Sheets", rng) == []
    # The day of a date stays a day of a month.
    for seed in range(20):
        days = dis.numeric_variants("24 April 1954", random.Random(seed))
        assert days and all(d.endswith(" April 1954") for d in days)
        assert all(1 <= int(d.split()[0]) <= 28 for d in days)


@pytest.mark.parametrize(
    ("text", "precision"),
    [
        ("15 January 1954", "day"),
        ("January 18, 2000", "day"),
        ("May 3rd, 1990", "day"),
        ("August 1999", "month"),
        ("March 2000", "month"),
        ("1955", "year"),
        ("the 1990s", "year"),
    ],
)
def test_date_precision(text: str, precision: str) -> None:
    assert dis.date_precision(text) == precision


def test_a_date_keeps_wrong_answers_as_precise_as_the_key() -> None:
    # "1955" beside three days of 1954 is the odd one out by its form (bench/generation.py).
    out = dis.filter_distractors(
        "15 January 1954",
        ["10 January 1954", "1955", "March 1954", "24 April 1954", "March 3, 1953"],
        embed=None,
        reader=None,
    )
    assert out.kept == ["10 January 1954", "24 April 1954", "March 3, 1953"]
    reasons = dict(out.dropped)
    assert reasons["1955"] == "a year where the key is a day (the odd one out by form)"
    assert reasons["March 1954"].startswith("a month where the key is a day")
    # A month's wrong answers are months: a day or a year among them stands out as much.
    months = dis.filter_distractors(
        "August 1999", ["October 1999", "January 18, 2000", "2001"], embed=None, reader=None
    )
    assert months.kept == ["October 1999"]


def test_a_decade_moves_by_decades_and_keeps_decades_beside_it() -> None:
    # By years "the 1920s" got "1889s", "early 1640s" got "early 1651s": no decades.
    for answer, head in (("the 1920s", "the "), ("early 1640s", "early "), ("1990s", "")):
        for seed in range(20):
            variants = dis.numeric_variants(answer, random.Random(seed))
            assert variants and all(v.startswith(head) for v in variants), (answer, variants)
            assert all(re.fullmatch(r"\d{3}0s", v[len(head) :]) for v in variants), variants
    out = dis.filter_distractors(
        "the 1920s", ["the 1930s", "1925", "1889s", "the 1950s"], embed=None, reader=None
    )
    assert out.kept == ["the 1930s", "the 1950s"]
    assert "odd by its form" in dict(out.dropped)["1925"]
    assert "odd by its form" in dict(out.dropped)["1889s"]
    # And a year's wrong answers are years: "1920s" beside 1925 stands out as much.
    years = dis.filter_distractors("1925", ["1931", "1920s", "1918"], embed=None, reader=None)
    assert years.kept == ["1931", "1918"]


def test_a_day_before_a_comma_keeps_the_comma() -> None:
    # "January 16 2000" beside "January 18, 2000" is told apart by its form.
    for seed in range(10):
        days = dis.numeric_variants("January 18, 2000", random.Random(seed))
        assert days and all(re.fullmatch(r"January \d{1,2}, 2000", d) for d in days)
    assert all("," in n for n in dis.numeric_variants("4,686", random.Random(1)))


def test_a_months_date_varies_its_month_not_its_year() -> None:
    # "August 1988" answers "In which month ...?" as well as "August 1999" does.
    for seed in range(10):
        months = dis.numeric_variants("August 1999", random.Random(seed))
        assert len(months) == 4 and "August 1999" not in months
        assert all(
            m.endswith(" 1999")
            and m.split()[0]
            in {"April", "May", "June", "July", "September", "October", "November", "December"}
            for m in months
        )


def test_dates_are_told_apart_by_value_not_by_embedding() -> None:
    # MiniLM reads every date of a year as nearly the same: here all vectors are equal.
    def same_vector(texts: object) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]  # type: ignore[attr-defined]

    out = dis.filter_distractors(
        "24 April 1954",
        ["18 March 1954", "March 18, 1954", "28 April 1954", "15 January 1954"],
        embed=same_vector,
        reader=None,
    )
    assert out.kept == ["18 March 1954", "28 April 1954", "15 January 1954"]
    assert dict(out.dropped)["March 18, 1954"] == "the same value as another distractor"
    assert dis.same_value("1,200 km", "1200 km")
    assert not dis.same_value("18 March 1954", "19 March 1954")

    # Phrases still go by the embedding: equal vectors (not the key's) are near duplicates.
    def key_apart(texts: object) -> list[list[float]]:
        return [[1.0, 0.0] if t == "lateral erosion" else [0.6, 0.8] for t in texts]  # type: ignore[attr-defined]

    phrases = dis.filter_distractors(
        "lateral erosion", ["abrasion", "attrition"], embed=key_apart, reader=None
    )
    assert phrases.kept == ["abrasion"]


def test_text_filters_give_reasons() -> None:
    out = dis.filter_distractors(
        "Millard Sheets",
        [
            "Millard Sheets",
            "Sheets",
            "Millard Sheets Jr",
            "Andy Warhol",
            "andy warhol",
            "1963",
            "Pablo Picasso",
            "Diego Rivera",
            "Frida Kahlo",
        ],
        embed=None,
        reader=None,
    )
    reasons = dict(out.dropped)
    assert reasons["Millard Sheets"] == "the same as the key"
    assert reasons["Sheets"] == "part of the key"
    assert reasons["Millard Sheets Jr"] == "contains the key"
    assert reasons["andy warhol"] == "a duplicate of another candidate"
    assert reasons["1963"].startswith("not the same kind")
    assert out.kept == ["Andy Warhol", "Pablo Picasso", "Diego Rivera"]
    assert reasons["Frida Kahlo"].startswith("not needed")


def test_the_key_in_the_singular_or_plural_is_no_wrong_answer() -> None:
    out = dis.filter_distractors(
        "meanders",
        ["meander", "oxbow lakes", "levees", "deltas"],
        embed=None,
        reader=None,
    )
    assert dict(out.dropped)["meander"] == "the key in the singular or the plural"
    assert out.kept == ["oxbow lakes", "levees", "deltas"]
    # The whole answer is compared, its last word in the singular: "lake bends" stays.
    out = dis.filter_distractors(
        "river bend", ["river bends", "lake bends"], embed=None, reader=None
    )
    assert [text for text, _ in out.dropped] == ["river bends"]


def _fake_embed(table: dict[str, list[float]]):  # a fixed vector per text
    def embed(texts):
        return [table[t] for t in texts]

    return embed


def test_similarity_band_and_the_reader() -> None:
    table = {
        "car": [1.0, 0.0, 0.0],
        "automobile": [0.99, 0.1, 0.0],  # a synonym: too close
        "banana": [0.0, 0.0, 1.0],  # unrelated: cosine 0
        "bicycle": [0.6, 0.8, 0.0],
        "bike": [0.6, 0.79, 0.01],  # nearly the same as bicycle
        "truck": [0.7, 0.0, 0.71],
        "train": [0.5, -0.5, 0.7],
    }
    seen: list[list[str]] = []

    # "truck" beats the key reading the source; without it "train" is the most plausible.
    readings = {
        "bicycle": dis.Reading(margin=-0.3, plausibility=-4.0),
        "truck": dis.Reading(margin=0.5, plausibility=-1.0),
        "train": dis.Reading(margin=-2.0, plausibility=-2.5),
    }

    def reader(texts: list[str]) -> list[dis.Reading]:
        seen.append(texts)
        return [readings[t] for t in texts]

    out = dis.filter_distractors("car", list(table)[1:], embed=_fake_embed(table), reader=reader)
    reasons = dict(out.dropped)
    assert reasons["automobile"].startswith("too close to the key")
    assert reasons["banana"].startswith("unrelated to the key")
    assert reasons["bike"] == "nearly the same as another distractor"
    assert reasons["truck"].startswith("the QA model")
    assert out.kept == ["train", "bicycle"]  # the most plausible first
    # The QA check runs once over the survivors of the cheaper filters.
    assert seen == [["bicycle", "truck", "train"]]


def test_numbers_are_exempt_from_the_upper_bound() -> None:
    table = {"14": [1.0, 0.0], "15": [0.99, 0.14], "16": [0.98, 0.2], "13": [0.97, 0.24]}
    out = dis.filter_distractors(
        "14",
        ["15", "16", "13"],
        embed=_fake_embed(table),
        reader=None,
        config=dis.FilterConfig(max_between_distractors=1.0),
    )
    assert out.kept == ["15", "16", "13"]


def test_options_the_question_names_are_dropped_and_spares_fill_in() -> None:
    candidates = ["Antigone", "Oedipus", "Polynices", "Ismene", "Eurydice"]
    out = dis.filter_distractors(
        "Creon",
        candidates,
        embed=None,
        reader=None,
        question="Which ruler tries to stop Antigone from burying her brother?",
    )
    assert dict(out.dropped)["Antigone"] == dis.NAMED_IN_QUESTION
    assert out.kept == ["Oedipus", "Polynices", "Ismene"]
    assert out.spare == ["Eurydice"]
    # Another candidate question of the same target names one of the kept ones: the spare
    # takes its place, in order.
    other = "Whom does Creon forbid to bury Polynices?"
    assert dis.options_for(other, out, 3) == ["Oedipus", "Ismene", "Eurydice"]
    assert dis.named_in("the King", "Who was the king?")
    assert not dis.named_in("King", "Who was the kingdom's ruler?")  # whole words only


def test_an_option_the_question_describes_in_its_own_words_is_named_in_it() -> None:
    # A standard bench item (4082bbf): "bank erosion" and "bed erosion" are what the question
    # describes, so a student takes them as right; the key lateral erosion is not named.
    question = "What type of erosion does the river undergo as it wears away its banks and bed?"
    assert dis.named_in("bank erosion", question)
    assert dis.named_in("bed erosion", question)
    assert not dis.named_in("channel erosion", question)  # "channel" is not in it
    assert not dis.named_in("lateral erosion", question)
    assert not dis.named_in("the", question)  # no word left once articles go: nothing named


class _Scores:
    def __init__(self, total: float, n: int) -> None:
        self.total, self.n_tokens = total, n
        self.mean = total / n if n else 0.0


def test_plausibility_is_the_gain_over_a_question_that_asks_nothing() -> None:
    # Log-probabilities by prompt: the source-reading prompt, the closed-book question, and
    # the neutral question. "Queen Margaret College" is likelier than "supersymmetry" under
    # the question, but only because its words are likely anyway.
    table = {
        "source": {" GUT": -2.0, " supersymmetry": -6.0, " Queen Margaret College": -9.0},
        "asked": {" supersymmetry": -5.0, " Queen Margaret College": -4.5},
        "neutral": {" supersymmetry": -9.0, " Queen Margaret College": -4.0},
    }

    class Reader:
        def option_logprobs(self, prefix, options, reuse_prefix=None):  # type: ignore[no-untyped-def]
            if prefix.startswith("The fact."):
                which = "source"
            elif dis.NEUTRAL_QUESTION in prefix:
                which = "neutral"
            else:
                which = "asked"
            return [_Scores(table[which][o], 2) for o in options]

    read = dis.qa_reading(Reader(), "The fact.", "Which theory?", "GUT")  # type: ignore[arg-type]
    found = read(["supersymmetry", "Queen Margaret College"])
    assert [r.margin for r in found] == [-2.0, -3.5]  # per token: (-6 - -2) / 2, (-9 - -2) / 2
    assert [r.plausibility for r in found] == [4.0, -0.5]


def test_a_key_without_tokens_prefers_no_distractor() -> None:
    class Reader:  # the key scores no token: the margin cannot be computed
        def option_logprobs(self, prefix, options, reuse_prefix=None):  # type: ignore[no-untyped-def]
            key = [_Scores(0.0, 0)] if prefix.startswith("A fact.") else []
            return [*key, *(_Scores(-1.0, 2) for _ in options[len(key) :])]

    read = dis.qa_reading(Reader(), "A fact.", "A question?", "key")(["a", "b"])  # type: ignore[arg-type]
    assert [r.margin < 0 for r in read] == [True, True]
    assert [r.plausibility for r in read] == [0.0, 0.0]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which playwright is known for the play Antigone?", "playwright"),
        ("Which playwright wrote Antigone?", "playwright"),
        ("Which theory combines the electroweak and strong forces?", "theory"),
        ("What network relaunched Millionaire as a syndicated program?", "network"),
        # the noun's lemma: an adjective before it is no part of the kind
        ("What military force was not included in the Home Guard?", "force"),
        ("What is the name of the waterfall that has moved back?", "waterfall"),
        ("What was the name of the person who was captured in Nyeri?", "person"),
        ("What kind of rock is granite?", "rock"),
        ("A cell holds many structures. What are these structures?", "structure"),
        ("Which organelle releases energy from glucose?", "organelle"),
        # asks for a name: a wrong answer of the kind named would be right too
        ("What are the large bends known as?", None),
        ("What is the process called?", None),
        ("Roger Taylor is known as the drummer for which rock band?", "rock band"),
        ("What is the cell theory of Schwann?", "cell theory"),
        ("Which rivers join the Thames?", "river"),
        ("What gas do plants take in?", "gas"),
        ("What is the capital of France?", "capital"),
        ("What is the name of a Presbyterian school in Wellington?", "school"),
        ("What kind of Roman building was the Pantheon?", "building"),
        # a participle before the noun is passed over, not read as the kind or as a verb
        ("What is the name of a proposed theory in physics?", "theory"),
        ("What kind of protected area is it?", "area"),
        # No kind named, or a number or a time (same_kind's business):
        ("Who is Antigone's father?", "person"),
        ("Whom did Creon sentence to death?", "person"),
        # "who" after an opening phrase; a word of when passed over before the noun
        ("In Sophocles' play Antigone, who is trying to stop her?", "person"),
        ("According to the passage, who defies Creon?", "person"),
        ("What is the name of the former ruler of Thebes?", "ruler"),
        ("Which current member of the council voted?", "member"),
        # ... and where a title follows it, no kind rather than "current"
        ("What is the name of the current King of Thebes?", None),
        # "who" in a relative clause asks for no person
        ("What did the king, who ruled Thebes, forbid?", None),
        ("When did Operation Anvil open?", None),
        ("What percentage of the insurgents were killed?", None),
        ("In what year was it completed?", None),
        ("What causes erosion?", None),
        ("What happened in 1954?", None),
        ("What do geographers group together?", None),
        ("What is the name of one of Antigone's daughters?", None),
        ("Which two rivers meet here?", None),
        # Not a question: a true/false item's statement, a rule-made stem's middle.
        ("Complete: The river which flows past ___ is wide.", None),
        ("She is not at all afraid of the what he threatens her with?", None),
    ],
)
def test_the_kind_a_question_asks_for(question: str, kind: str | None) -> None:
    assert dis.asked_kind(question) == kind


def _kind_check(readings: dict[str, float], asked: list[str]) -> dis.KindCheck:
    def says_yes(candidate: str) -> float:
        asked.append(candidate)
        return readings[candidate]

    return dis.KindCheck("playwright", says_yes)


def test_candidates_not_of_the_asked_kind_are_dropped_with_the_question_put() -> None:
    # Log-odds of Yes to "Is X a playwright?" as the 1.5B model read them.
    readings = {"Sophocles": 2.7, "Creon": -2.8, "Euripides": 2.3, "Oedipus": -1.5}
    # Homer and Plato: doubted, but within KIND_MARGIN of an even Yes/No.
    readings |= {"Aeschylus": 3.0, "Homer": -0.3, "Plato": -0.4}
    asked: list[str] = []
    out = dis.filter_distractors(
        "Sophocles",
        ["Creon", "Euripides", "Oedipus", "Aeschylus", "Homer", "Plato"],
        embed=None,
        reader=None,
        kind=_kind_check(readings, asked),
    )
    assert out.kept == ["Euripides", "Aeschylus", "Homer"]
    assert out.spare == ["Plato"]  # wanted 3 + 2 spares checked: only Plato was left
    reasons = dict(out.dropped)
    assert "not a playwright" in reasons["Creon"]
    assert "Is Oedipus a playwright?" in reasons["Oedipus"]
    assert asked == ["Sophocles", "Creon", "Euripides", "Oedipus", "Aeschylus", "Homer", "Plato"]


def test_the_kind_check_stops_when_enough_have_passed() -> None:
    names = ["Alcman", "Bion", "Crates", "Dion", "Eupolis", "Hermippus", "Ion", "Lycon", "Moschus"]
    readings = {"Sophocles": 2.7} | dict.fromkeys(names, 1.0)
    asked: list[str] = []
    out = dis.filter_distractors(
        "Sophocles",
        names,
        embed=None,
        reader=None,
        kind=_kind_check(readings, asked),
    )
    # 3 wanted + KIND_SPARES read; the other four are never asked about.
    assert len(asked) == 1 + 3 + dis.KIND_SPARES
    assert out.kept == names[:3] and out.spare == names[3:5]
    assert [r for t, r in out.dropped if t == "Moschus"] == [
        "not needed (enough better candidates)"
    ]


def test_an_unknown_key_sets_the_bar_at_its_own_reading() -> None:
    # "Is Shoushi Li a calendar?" reads No (-1.2): the model does not know the key. Only the
    # candidates it doubts well beyond the key (KIND_MARGIN) are dropped.
    readings = {"Shoushi Li": -1.2, "Julian Calendar": 2.4, "Right Alan Guard": -2.6}
    readings |= {"Kheshig": -0.7}
    out = dis.filter_distractors(
        "Shoushi Li",
        ["Julian Calendar", "Right Alan Guard", "Kheshig"],
        embed=None,
        reader=None,
        kind=_kind_check(readings, []),
    )
    assert out.kept == ["Julian Calendar", "Kheshig"]
    assert [t for t, _ in out.dropped] == ["Right Alan Guard"]


def test_a_doubted_key_does_not_lower_the_bar_below_the_floor() -> None:
    # "Is Mau Mau a group?" read -1.55: margin alone puts the bar at -2.05, which let "The
    # Demon" through on the generation bench. The floor (KIND_FLOOR) holds it at -1.0.
    readings = {"Mau Mau": -1.55, "The Demon": -1.3, "Kikuyu Central Association": -0.8}
    readings |= {"Home Guard": 0.9}
    out = dis.filter_distractors(
        "Mau Mau",
        ["The Demon", "Kikuyu Central Association", "Home Guard"],
        embed=None,
        reader=None,
        kind=dis.KindCheck("group", lambda candidate: readings[candidate]),
    )
    # Without the floor The Demon would pass: it reads above the margin's bar, below the floor.
    assert min(0.0, readings["Mau Mau"]) - dis.KIND_MARGIN < readings["The Demon"] < dis.KIND_FLOOR
    assert out.kept == ["Kikuyu Central Association", "Home Guard"]
    assert [t for t, _ in out.dropped] == ["The Demon"]


def test_the_most_telling_kind_of_a_targets_questions() -> None:
    who, which = "Who wrote Antigone?", "Which playwright wrote Antigone?"
    assert dis.kind_of_stems([who, which]) == "playwright"  # Creon is a person too
    assert dis.kind_of_stems([who, "What was written?"]) == "person"
    assert dis.kind_of_stems(["What was written?"]) is None


def test_a_doubted_candidate_is_dropped_below_the_margin() -> None:
    # "Is Polynices a playwright?" read -0.85 on the 1.5B model: a character of the play.
    readings = {"Sophocles": 2.7, "Polynices": -0.85, "Euripides": 2.3, "Menander": -0.3}
    out = dis.filter_distractors(
        "Sophocles",
        ["Polynices", "Euripides", "Menander"],
        embed=None,
        reader=None,
        kind=_kind_check(readings, []),
    )
    assert out.kept == ["Euripides", "Menander"]
    assert [t for t, _ in out.dropped] == ["Polynices"]


@pytest.mark.parametrize("key", ["the 20th century", "the 13th century", "21st century"])
def test_other_centuries_are_near_and_past(key: str) -> None:
    for seed in range(10):
        others = dis.numeric_variants(key, random.Random(seed))
        assert len(others) == 4 and key not in others
        numbers = [int(re.search(r"\d+", o).group()) for o in others]  # type: ignore[union-attr]
        value = int(re.search(r"\d+", key).group())  # type: ignore[union-attr]
        assert all(1 <= n <= dis.LAST_CENTURY and abs(n - value) <= 4 for n in numbers)
        assert all(o.endswith("century") for o in others)
        assert all(o.split()[-2] == dis.ordinal(n) for o, n in zip(others, numbers, strict=True))


def test_ordinal_endings() -> None:
    assert [dis.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd"
    ]  # fmt: skip


def test_kind_reading_asks_the_yes_no_question() -> None:
    prompts: list[tuple[str, list[str]]] = []

    class QA:
        def option_logprobs(self, prefix, options, reuse_prefix=None):  # type: ignore[no-untyped-def]
            prompts.append((prefix, list(options)))
            return [_Scores(-0.5, 1), _Scores(-3.0, 1)]

    check = dis.kind_reading(QA(), "alloy")  # type: ignore[arg-type]
    assert check.says_yes("Bronze") == pytest.approx(2.5)
    assert prompts == [("Q: Is Bronze an alloy?\nA:", [" Yes", " No"])]


KIMATHI = (
    "The capture of Dedan Kimathi on 21 October 1956 in Nyeri signified the ultimate defeat "
    "of the Mau Mau. Warũhiũ Itote, known as General China, had been captured in 1954."
)


def test_placeholder_names_the_passage_never_mentions_are_dropped() -> None:
    # The 1.5B model's wrong answers for "Who was captured in Nyeri?" on two seeds.
    written = ["John Doe", "Jane Smith", "Robert Johnson", "Peter Brown", "Maria Davis"]
    out = dis.filter_distractors(
        "Dedan Kimathi",
        [*written, "Warũhiũ Itote", "Jomo Kenyatta", "Field Marshal Muthoni"],
        embed=None,
        reader=None,
        passage=KIMATHI,
    )
    reasons = dict(out.dropped)
    assert all(reasons[name] == dis.INVENTED_NAME for name in written)
    assert out.kept == ["Warũhiũ Itote", "Jomo Kenyatta", "Field Marshal Muthoni"]


@pytest.mark.parametrize(
    ("name", "invented"),
    [
        ("John Smith", True),
        ("jane doe", True),
        ("Tom Brown", True),
        ("Mike", True),  # a short form alone (offered for Creon's part)
        ("Tom", True),
        ("Peter", False),  # a full given name alone may be a real answer (an apostle)
        ("Percy", False),
        ("John Smith Jr", False),  # three words: not the two-word placeholder
        ("John Adams", False),  # the surname is not a placeholder's
        ("Warũhiũ Itote", False),
        ("Evaporation", False),
    ],
)
def test_what_counts_as_a_placeholder_name(name: str, invented: bool) -> None:
    assert invented_name(name, KIMATHI) is invented


@pytest.mark.parametrize(
    ("name", "key", "invented"),
    [
        # A lone English given name beside a one-word key of another sort: a placeholder.
        ("Percy", "Creon", True),
        ("John", "Creon", True),
        ("Sally", "Oedipus", True),
        # Beside a key that is a given name itself (an apostle) it may be a real answer.
        ("John", "Peter", False),
        ("Thomas", "Peter", False),
        # A longer key, or no key: only the two-word and short-form rules apply.
        ("Percy", "Dedan Kimathi", False),
        ("Percy", "", False),
        # A name that is no common given name stays.
        ("Haemon", "Creon", False),
    ],
)
def test_a_lone_given_name_beside_a_key_of_another_sort(
    name: str, key: str, invented: bool
) -> None:
    passage = "Antigone defies Creon, the King of Thebes, and buries her brother Polynices."
    assert invented_name(name, passage, key) is invented


def test_a_common_name_the_passage_mentions_is_a_real_person() -> None:
    passage = "Captain John Smith led the settlers at Jamestown in 1607."
    assert not invented_name("John Smith", passage)
    assert invented_name("Mary Jones", passage)
    assert not invented_name("Tom", "Tom and Huck float down the Mississippi.")
    assert not invented_name("John", "John and Creon met.", "Creon")


def test_without_the_passage_no_name_is_called_invented() -> None:
    out = dis.filter_distractors(
        "Dedan Kimathi", ["John Smith", "Jomo Kenyatta"], embed=None, reader=None
    )
    assert out.kept == ["John Smith", "Jomo Kenyatta"]


def test_a_broader_term_the_key_belongs_to_is_dropped_as_right_too() -> None:
    # Log-odds of Yes to "Is private schools a kind of X?" as the 1.5B model read them
    # (bench items at 00f2025): only the broader term reaches BROADER_FROM.
    readings = {"educational institutions": 2.4, "public schools": -0.7}
    readings |= {"government schools": -1.1, "boarding schools": 0.5}
    asked: list[str] = []

    def broader(candidate: str) -> float:
        asked.append(candidate)
        return readings[candidate]

    out = dis.filter_distractors(
        "private schools",
        ["government schools", "educational institutions", "public schools", "boarding schools"],
        embed=None,
        reader=None,
        broader=broader,
    )
    assert out.kept == ["government schools", "public schools", "boarding schools"]
    (reason,) = [r for t, r in out.dropped if t == "educational institutions"]
    assert "broader term" in reason
    assert "Is private schools a kind of educational institutions?" in reason
    checked = ["government schools", "educational institutions", "public schools"]
    assert asked == [*checked, "boarding schools"]


def test_numbers_dates_and_names_are_not_asked_what_they_are_a_kind_of() -> None:
    asked: list[str] = []
    cases = [
        ("15 January 1954", ["10 January 1954", "24 April 1954"]),
        ("42%", ["32%", "15%"]),
        ("1954", ["1953", "1955"]),
        ("River Thames", ["Amazon River", "Mekong River"]),  # names: no broader term passes
    ]
    for key, candidates in cases:
        out = dis.filter_distractors(
            key, candidates, embed=None, reader=None, broader=lambda c: asked.append(c) or 9.0
        )
        assert out.kept == candidates
    assert asked == []


def test_broader_reading_asks_with_the_keys_head_read_once() -> None:
    from quizsmith.providers.base import OptionLogprob, Transient

    class QA:
        def __init__(self) -> None:
            self.calls: list[tuple[str, object]] = []

        def option_logprobs(self, prefix: str, options: list[str], *, reuse_prefix: object = ""):
            self.calls.append((prefix, reuse_prefix))
            return [
                OptionLogprob(" Yes", -0.1, -0.1, 1),
                OptionLogprob(" No", -2.5, -2.5, 1),
            ]

    qa = QA()
    says = dis.broader_reading(qa, "water")  # type: ignore[arg-type]
    assert says("liquid") == pytest.approx(2.4)
    says("gas")
    assert [p for p, _ in qa.calls] == [
        "Q: Is water a kind of liquid?\nA:",
        "Q: Is water a kind of gas?\nA:",
    ]
    heads = [h for _, h in qa.calls]
    assert heads == ["Q: Is water a kind of"] * 2 and all(isinstance(h, Transient) for h in heads)


def test_the_kind_a_question_asks_its_key_to_be() -> None:
    from quizsmith.generation.distractor_kinds import PLACE, kind_asked_of_key

    assert kind_asked_of_key("Where does the channel deepen?") == PLACE
    assert kind_asked_of_key("Which playwright wrote Antigone?") == "playwright"
    # "Who" is answered by groups and bodies too: no kind is read for the key.
    assert kind_asked_of_key("Who defeated the Mau Mau?") is None
    assert kind_asked_of_key("What do rivers carry?") is None
    assert kind_asked_of_key("Where the river bends") is None  # not a question


def test_a_decade_never_moves_past_the_present_one() -> None:
    for seed in range(30):
        for v in dis.numeric_variants("the 2010s", random.Random(seed)):
            assert int(v[4:8]) <= date.today().year, v
