"""Which of a target's checked wrong answers one question gets (`options_of_question`): the
ones it does not name, without those likely of another kind than the key (the "a wrong
answer no one would choose" warning its review would raise, and the stand-ins) while two
others are left."""

from __future__ import annotations

from quizsmith.generation.distractors import NAMED_IN_QUESTION, FilterOutcome
from quizsmith.generation.wrong_answer_sets import options_of_question

PASSAGE = (
    "King John of England accepted Magna Carta in a meadow at Runnymede on 15 June 1215. "
    "Pope Innocent III annulled it, leading to the First Barons' War."
)
QUESTION = "What document did King John accept at Runnymede?"


def test_a_spare_takes_the_place_of_a_wrong_answer_of_another_kind() -> None:
    outcome = FilterOutcome(
        kept=["1216", "Charter of the Forest", "Petition of Right"],
        spare=["Assize of Clarendon"],
    )
    chosen, left_out = options_of_question(QUESTION, "Magna Carta", outcome, 3, PASSAGE, 2)
    assert chosen == ["Charter of the Forest", "Petition of Right", "Assize of Clarendon"]
    ((text, why),) = left_out
    assert text == "1216" and "is a number where the key" in why


def test_without_a_spare_the_wrong_answer_of_another_kind_leaves_a_three_option_item() -> None:
    outcome = FilterOutcome(kept=["1216", "Charter of the Forest", "Petition of Right"])
    chosen, left_out = options_of_question(QUESTION, "Magna Carta", outcome, 3, PASSAGE, 2)
    assert chosen == ["Charter of the Forest", "Petition of Right"]
    ((text, why),) = left_out
    assert text == "1216" and "the item has fewer options" in why
    # Where three wrong answers are the fewest, it stays, last.
    chosen, left_out = options_of_question(QUESTION, "Magna Carta", outcome, 3, PASSAGE, 3)
    assert chosen == ["Charter of the Forest", "Petition of Right", "1216"]
    assert left_out == []


def test_a_stand_in_of_another_kind_is_left_out_while_two_others_remain() -> None:
    outcome = FilterOutcome(
        kept=["Charter of the Forest", "meadow", "Petition of Right"], stand_ins=["meadow"]
    )
    chosen, left_out = options_of_question(QUESTION, "Magna Carta", outcome, 3, PASSAGE, 2)
    assert chosen == ["Charter of the Forest", "Petition of Right"]
    assert [text for text, _ in left_out] == ["meadow"]
    # With one other left, the stand-in fills a full set, last; a short set never takes it:
    # too few, the fact gives no item.
    outcome = FilterOutcome(
        kept=["meadow", "Charter of the Forest", "barons"], stand_ins=["meadow", "barons"]
    )
    chosen, left_out = options_of_question(QUESTION, "Magna Carta", outcome, 3, PASSAGE, 2)
    assert chosen == ["Charter of the Forest", "meadow", "barons"] and left_out == []
    outcome = FilterOutcome(kept=["Charter of the Forest", "meadow"], stand_ins=["meadow"])
    chosen, left_out = options_of_question(QUESTION, "Magna Carta", outcome, 3, PASSAGE, 2)
    assert chosen == ["Charter of the Forest"]


def test_a_wrong_answer_the_question_names_is_left_out_with_that_reason() -> None:
    outcome = FilterOutcome(
        kept=["Runnymede Charter", "Charter of the Forest", "Petition of Right"],
        spare=["Assize of Clarendon"],
    )
    question = "Which charter did King John accept at Runnymede Charter meadow?"
    chosen, left_out = options_of_question(question, "Magna Carta", outcome, 3, PASSAGE, 2)
    assert "Runnymede Charter" not in chosen and len(chosen) == 3
    assert left_out == [("Runnymede Charter", NAMED_IN_QUESTION)]


def test_a_wrong_answer_in_another_form_than_the_key_is_left_out_while_two_remain() -> None:
    # A plural among singular answers is the odd one out by its form.
    sonnets = "Most English sonnets are written in iambic pentameter, in three quatrains."
    outcome = FilterOutcome(kept=["trochaic pentameter", "quatrains", "dactylic hexameter"])
    question = "What is the meter of most English sonnets?"
    chosen, left_out = options_of_question(question, "iambic pentameter", outcome, 3, sonnets, 2)
    assert chosen == ["trochaic pentameter", "dactylic hexameter"]
    ((text, why),) = left_out
    assert text == "quatrains" and "plural" in why and "fewer options" in why


def test_names_are_not_left_out_for_the_taggers_guess_at_their_number() -> None:
    # The tagger reads "Sophocles" as a plural proper noun, "Aeschylus" as a singular one.
    fact = "Antigone is a tragedy by Sophocles, written in or before 441 BC."
    outcome = FilterOutcome(kept=["Aeschylus", "Euripides", "Aristophanes"])
    chosen, left_out = options_of_question("Who wrote Antigone?", "Sophocles", outcome, 3, fact, 2)
    assert chosen == ["Aeschylus", "Euripides", "Aristophanes"] and left_out == []
