"""Full-text search combined with filters and sorting."""

from __future__ import annotations

import pytest

from quizsmith.bank import BankError, ItemBank
from quizsmith.bank.search import fts_query
from quizsmith.domain import Flag, ScoreResult

from .helpers import mcq, passage


@pytest.fixture
def filled(bank: ItemBank) -> dict[str, int]:
    ids = {
        "capital": bank.add_item(
            mcq(subject="Geography", tags=["europe"], passage=passage(subject="Geography"))
        ),
        "river": bank.add_item(
            mcq("Which river crosses Paris?", "Seine", ["Loire", "Rhône"], subject="Geography")
        ),
        "photo": bank.add_item(
            mcq(
                "Which gas do plants absorb?",
                "Carbon dioxide",
                ["Oxygen", "Nitrogen"],
                subject="Biology",
                tags=["plants"],
                passage=passage("Photosynthesis turns light into chemical energy."),
            )
        ),
        "resume": bank.add_item(
            mcq("What is a résumé?", "A CV", ["A meal", "A song"], subject="Language")
        ),
        "cjk": bank.add_item(mcq("東京は日本の首都ですか", "はい", ["いいえ", "たぶん"])),
    }
    scores = {"capital": 0.9, "river": 0.4, "photo": 0.7}
    for name, value in scores.items():
        bank.add_score(ids[name], ScoreResult(metric="naco", value=value))
    bank.add_score(ids["resume"], ScoreResult.not_scored("naco", "parse failure"))
    bank.set_flags(ids["river"], [Flag("answer-differs", "Model answered Loire.", "naco")])
    bank.review(ids["capital"], "accept")
    bank.review(ids["photo"], "accept")
    return ids


def _ids(items: list) -> list[int]:
    return [i.id for i in items]


def test_words_match_stems_keys_options_and_passages(bank: ItemBank, filled: dict) -> None:
    assert _ids(bank.search("river")) == [filled["river"]]
    assert _ids(bank.search("seine")) == [filled["river"]]  # key
    assert _ids(bank.search("rhône")) == [filled["river"]]  # option
    assert _ids(bank.search("photosynthesis")) == [filled["photo"]]  # passage
    assert _ids(bank.search("largest city")) == [filled["capital"]]  # passage phrase
    assert _ids(bank.search("plants oxygen")) == [filled["photo"]]  # all words
    assert bank.search("plants seine") == []


def test_prefix_accents_and_case(bank: ItemBank, filled: dict) -> None:
    assert _ids(bank.search("photosyn")) == [filled["photo"]]  # typing in progress
    assert _ids(bank.search("RESUME")) == [filled["resume"]]  # accents ignored
    assert _ids(bank.search("rhone")) == [filled["river"]]
    assert _ids(bank.search("東京は日本の首都ですか")) == [filled["cjk"]]


@pytest.mark.parametrize(
    "query",
    ['"', "AND (", "NEAR(a b)", "stem:paris", "*", "a OR", '"unbalanced', "-x", "^", "(((", "'"],
)
def test_any_typed_text_is_safe(bank: ItemBank, filled: dict, query: str) -> None:
    bank.search(query)
    bank.count(query)


def test_fts_query_quotes_every_term() -> None:
    assert fts_query("capital France") == '"capital" "France"*'
    assert fts_query('"capital of" France') == '"capital of" "France"*'
    assert fts_query("capital AND (") == '"capital" "AND"*'
    assert fts_query('"exact words"') == '"exact words"'
    assert fts_query(' " ( ') is None and fts_query("") is None


def test_filters_combine_with_the_query(bank: ItemBank, filled: dict) -> None:
    assert set(_ids(bank.search(subject="Geography"))) == {filled["capital"], filled["river"]}
    assert _ids(bank.search("paris", subject="geography", status="accepted")) == [filled["capital"]]
    assert _ids(bank.search(tag="plants")) == [filled["photo"]]
    assert set(_ids(bank.search(status=["accepted", "rejected"]))) == {
        filled["capital"],
        filled["photo"],
    }
    assert _ids(bank.search(flagged=True)) == [filled["river"]]
    assert filled["river"] not in _ids(bank.search(flagged=False))
    # A hint alone does not make an item flagged (it does not queue it for review).
    bank.set_flags(filled["photo"], [Flag("too-easy", "1 step, 2 expected.", "naco", "info")])
    assert _ids(bank.search(flagged=True)) == [filled["river"]]
    assert filled["photo"] in _ids(bank.search(flagged=False))
    assert bank.count(subject="Geography") == 2 and bank.count("paris") == 2
    assert bank.search(subject="Astronomy") == [] and bank.search(tag="nope") == []


def test_score_thresholds_are_inclusive_and_skip_unscored(bank: ItemBank, filled: dict) -> None:
    assert _ids(bank.search(min_scores={"naco": 0.7}, sort_by="naco")) == [
        filled["capital"],
        filled["photo"],
    ]
    assert _ids(bank.search(max_scores={"naco": 0.4})) == [filled["river"]]
    assert _ids(bank.search(min_scores={"naco": 0.5}, max_scores={"naco": 0.8})) == [
        filled["photo"]
    ]
    assert bank.search(min_scores={"kda": 0.0}) == []


def test_sort_by_a_score_puts_unscored_items_last(bank: ItemBank, filled: dict) -> None:
    down = _ids(bank.search(sort_by="naco"))
    assert down[:3] == [filled["capital"], filled["photo"], filled["river"]]
    assert set(down[3:]) == {filled["resume"], filled["cjk"]}
    up = _ids(bank.search(sort_by="naco", descending=False))
    assert up[:3] == [filled["river"], filled["photo"], filled["capital"]]


def test_sort_by_created_and_paging(bank: ItemBank, filled: dict) -> None:
    newest_first = _ids(bank.search())
    assert newest_first == sorted(filled.values(), reverse=True)
    assert _ids(bank.search(sort_by="created", descending=False)) == sorted(filled.values())
    page1 = _ids(bank.search(limit=2))
    page2 = _ids(bank.search(limit=2, offset=2))
    assert page1 + page2 == newest_first[:4]


def test_listings_do_not_load_passages_unless_asked(bank: ItemBank, filled: dict) -> None:
    (item,) = bank.search("photosynthesis")
    assert item.passage is None and item.passage_id is not None
    (item,) = bank.search("photosynthesis", with_passages=True)
    assert item.passage is not None and "Photosynthesis" in item.passage.text


def test_unknown_status_is_a_clear_error(bank: ItemBank) -> None:
    with pytest.raises(BankError, match="Unknown status"):
        bank.search(status="approved")
