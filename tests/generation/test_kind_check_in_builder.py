"""The distractor kind check in the builder: it takes the asked kind from whichever of a
target's stems names it, and it runs only for a QA model that can tell kinds apart; so does
the check that drops a broader term the key belongs to ("educational institutions" for
"private schools"; names, numbers and dates are never asked: tests/generation/test_distractors.py).

Scripted models (the builder's control flow, not a model's quality); the real 1.5B model's
readings are checked in tests/test_standard_profile.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tests.support.build_contexts import build_context

from quizsmith.generation import prompts
from quizsmith.generation.analysis import analyse
from quizsmith.generation.builder import BuildContext, build_candidates
from quizsmith.generation.target import Target, TargetKind
from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    OptionLogprob,
    Provider,
    Reusable,
    Transient,
)

FACT = "Antigone is a tragedy by Sophocles, written in or before 441 BC."
STEMS = ["Who wrote the tragedy Antigone?", "Which playwright wrote the tragedy Antigone?"]
WRONG = ["Creon", "Euripides", "King of Thebes", "Aeschylus", "Aristophanes"]
#: Log-odds of Yes to "Is X a playwright?"; characters of the play read No.
IS_A_PLAYWRIGHT = {"Sophocles": 2.7, "Euripides": 2.3, "Aeschylus": 3.0, "Aristophanes": 2.0}
IS_A_PLAYWRIGHT |= {"Creon": -2.8, "King of Thebes": -2.1}

SCHOOLS_FACT = "Academic Colleges Group is a group of private schools run as a business."
SCHOOLS_STEM = "Which schools does the Academic Colleges Group run?"
SCHOOLS_WRONG = ["public schools", "educational institutions", "state schools", "charter schools"]
#: Log-odds of Yes to "Is private schools a kind of X?" (the 1.5B model read +2.4 for the
#: broader term on the bench item this comes from, and below 0 for the others).
IS_A_KIND_OF = {"public schools": -0.7, "educational institutions": 2.4}
IS_A_KIND_OF |= {"state schools": -1.0, "charter schools": -0.9}


@dataclass
class Script:
    """What the scripted model writes, and how it answers the yes/no questions (by the
    question, without its "\nA:")."""

    fact: str
    stems: list[str]
    wrong: list[str]
    says_yes: dict[str, float]


SOPHOCLES = Script(
    FACT,
    STEMS,
    WRONG,
    {f"Q: Is {name} a playwright?": v for name, v in IS_A_PLAYWRIGHT.items()},
)
SCHOOLS = Script(
    SCHOOLS_FACT,
    [SCHOOLS_STEM],
    SCHOOLS_WRONG,
    {f"Q: Is private schools a kind of {name}?": v for name, v in IS_A_KIND_OF.items()}
    # The stem names the kind "school"; every candidate reads as one.
    | {f"Q: Is {name} a school?": 2.0 for name in ["private schools", *SCHOOLS_WRONG]}
    # The passage's own phrases (the analysis offers them after the model's): not schools.
    | {f"Q: Is {name} a school?": -2.0 for name in ["business", "group"]}
    | {f"Q: Is private schools a kind of {name}?": -1.0 for name in ["business", "group"]},
)


class ScriptedModel(Provider):
    """Writes the scripted stems and wrong answers, and reads options: the key is preferred
    on the source (nothing is 'also true'), every option equally plausible, and the yes/no
    questions answered from the script."""

    name: ClassVar[str] = "scripted"
    can_chat = True
    can_logprob = True
    is_local = False

    def __init__(self, script: Script) -> None:
        self.script = script
        self.stems = list(script.stems)
        #: The yes/no questions asked, with the head the model was told to read once.
        self.questions: list[tuple[str, Reusable]] = []
        self.distractor_requests: list[str] = []

    @property
    def kind_questions(self) -> list[str]:
        return [q for q, _ in self.questions]

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "scripted-model")

    def chat(
        self,
        messages: Sequence[Message | dict[str, str]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",
    ) -> ChatResult:
        if json_schema == prompts.QUESTION_ANSWER_SCHEMA:
            # No usable question with its own answer: the answer-aware attempts follow.
            data: dict[str, Any] = {"question": "", "answer": ""}
        elif json_schema == prompts.DISTRACTOR_SCHEMA:
            last = messages[-1]
            self.distractor_requests.append(
                last["content"] if isinstance(last, dict) else last.content
            )
            data = {"wrong_answers": self.script.wrong}
        else:
            data = {"question": self.stems.pop(0)}
        return ChatResult(text=json.dumps(data), model="scripted-model", data=data)

    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = ""
    ) -> list[OptionLogprob]:
        if prefix.startswith("Q: Is "):
            self.questions.append((prefix, reuse_prefix))
            yes = self.script.says_yes[prefix.removesuffix("\nA:")]
            return [OptionLogprob(" Yes", yes, yes, 1), OptionLogprob(" No", 0.0, 0.0, 1)]
        key_first = prefix.startswith(self.script.fact)
        return [
            OptionLogprob(o, -1.0 if key_first and i == 0 else -5.0, -1.0, 1)
            for i, o in enumerate(options)
        ]


def _context(
    generator: ScriptedModel, passage: str, *, qa: ScriptedModel | None = None, **extra: Any
) -> BuildContext:
    """A chat-profile build context on the scripted model; `extra` sets the other fields."""
    return build_context(passage, generator, qa=qa, **extra)


def _target(fact: str, key: str, kind: TargetKind) -> Target:
    return Target(fact, 0, key, fact.index(key), kind, 0, 1.0)


def _build(
    qa_knows_kinds: bool,
    script: Script = SOPHOCLES,
    key: str = "Sophocles",
    kind: TargetKind = "entity",
    passage: str = "",
    passage_terms: dict[str, str | None] | None = None,
) -> tuple[list[list[str]], ScriptedModel]:
    model = ScriptedModel(script)
    ctx = _context(
        model,
        passage or script.fact,
        qa=model,
        qa_knows_kinds=qa_knows_kinds,
        passage_terms=passage_terms or {},
    )
    # One attempt more than the scripted stems: the first writes a question with its own
    # answer (here none usable), the rest are the scripted answer-aware questions.
    built = build_candidates(_target(script.fact, key, kind), "mcq", len(script.stems) + 1, ctx)
    options = [[o.text for o in c.options if not o.is_key] for c in built.candidates]
    return options, model


def test_the_kind_named_by_the_second_stem_checks_the_shared_wrong_answers() -> None:
    options, model = _build(qa_knows_kinds=True)
    assert len(options) == 2  # both stems, one shared set of wrong answers
    for wrong in options:
        assert sorted(wrong) == ["Aeschylus", "Aristophanes", "Euripides"]
    assert "Q: Is Creon a playwright?\nA:" in model.kind_questions


def test_a_qa_model_that_cannot_tell_kinds_is_not_asked() -> None:
    options, model = _build(qa_knows_kinds=False)
    assert model.kind_questions == []
    assert "Creon" in options[0]  # the sources' order stands
    options, model = _build(False, SCHOOLS, "private schools", "phrase")
    assert model.kind_questions == []
    assert "educational institutions" in options[0]


def test_a_broader_term_the_key_belongs_to_is_dropped_and_the_next_stands_in() -> None:
    (options,), model = _build(True, SCHOOLS, "private schools", "phrase")
    assert sorted(options) == ["charter schools", "public schools", "state schools"]
    assert "Q: Is private schools a kind of educational institutions?\nA:" in model.kind_questions
    # The head is the same for every candidate: read once, not kept after.
    heads = [head for q, head in model.questions if " a kind of " in q]
    assert heads and {str(h) for h in heads} == {"Q: Is private schools a kind of"}
    assert all(isinstance(head, Transient) for head in heads)


def test_the_generator_is_told_the_kind_the_question_asks_for() -> None:
    _, model = _build(qa_knows_kinds=False)
    # Asked for the first stem ("Who wrote ...?"), with the kind the second one names.
    assert len(model.distractor_requests) == 1
    assert "Question: Who wrote the tragedy Antigone?" in model.distractor_requests[0]
    assert (
        "The question asks for a playwright: every wrong answer must be one."
        in model.distractor_requests[0]
    )


MEANDERS_FACT = "The river swings from side to side in large bends known as meanders."
MEANDERS = Script(
    MEANDERS_FACT,
    ["What are the curves the river swings through called?"],
    ["abrasion", "oxbow lakes", "saltation", "levees", "slip-off slopes"],
    # None is a broader term that takes meanders in.
    {f"Q: Is meanders a kind of {name}?": -1.0 for name in ["oxbow lakes", "levees"]}
    | {f"Q: Is meanders a kind of {name}?": -1.0 for name in ["abrasion", "saltation"]}
    | {"Q: Is meanders a kind of slip-off slopes?": -1.0},
)


def test_a_defined_terms_own_noun_is_not_the_kind_its_wrong_answers_must_be() -> None:
    """No stem names a kind. What the passage calls meanders (bends) is not asked of the
    wrong answers, nor told the generator: a wrong answer that is a bend would be right too,
    and "Is deltas a bend?" dropped the passage's other landforms (tried at d71cd03)."""
    terms = {"meanders": "bend", "oxbow lakes": "lake"}
    (wrong,), model = _build(True, MEANDERS, "meanders", "term", passage_terms=terms)
    # The bends stay (none is asked whether it is one); the processes, singular beside the
    # plural key, give way to the spares (wrong_answer_sets.options_of_question).
    assert sorted(wrong) == ["levees", "oxbow lakes", "slip-off slopes"]
    assert model.kind_questions and all(" a kind of " in q for q in model.kind_questions)
    assert "asks for" not in model.distractor_requests[0]


def test_no_kind_is_put_when_no_stem_names_one() -> None:
    assert (
        "asks for" not in prompts.distractors_chat("Who wrote it?", "Sophocles", FACT)[1]["content"]
    )
    assert (
        "asks for an element:"
        in prompts.distractors_chat("Which element is it?", "iron", FACT, "element")[1]["content"]
    )


ABRASION_FACT = "Stones carried by the current grind against the bed in a process called abrasion."
#: A passage that defines the terms of bench/generation.py's textbook on rivers, each with
#: the noun it calls it: a term the passage defines is offered the others it defines.
RIVER_PASSAGE = (
    f"{ABRASION_FACT} Pebbles bounce along the bed in a movement called saltation. Rolling "
    "along the bed is known as traction. The river swings through bends known as meanders."
)
RIVER_TERMS: dict[str, str | None] = {
    "abrasion": "process",
    "meanders": "bend",
    "saltation": "movement",
    "traction": None,
}
ABRASION = Script(
    ABRASION_FACT,
    ["What process grinds stones against the bed?"],
    ["erosion"],
    # The 1.5B model's readings: it does not know the terms, and knows the nouns.
    {"Q: Is a process a process?": 0.8, "Q: Is a bend a process?": -1.3}
    | {"Q: Is a movement a process?": 0.9, "Q: Is traction a process?": 0.5}
    | {"Q: Is erosion a process?": 2.7, "Q: Is abrasion a process?": 1.5}
    | {f"Q: Is abrasion a kind of {name}?": -1.0 for name in ["erosion", "saltation", "traction"]}
    # The passage's own phrases (the analysis offers them after the model's): no processes.
    | {f"Q: Is {name} a process?": -2.0 for name in ["upper course", "channel"]}
    | {f"Q: Is abrasion a kind of {name}?": -1.0 for name in ["upper course", "channel"]}
    | {f"Q: Is {name} a process?": -2.0 for name in ["Stones", "current grind", "bed"]}
    | {f"Q: Is abrasion a kind of {name}?": -1.0 for name in ["Stones", "current grind", "bed"]},
)


def test_a_defined_term_is_asked_about_by_the_noun_the_passage_calls_it() -> None:
    """The stem names the kind (a process): "Is meanders a process?" read as high as the key
    on the 1.5B model; "Is a bend a process?" reads No, so meanders goes."""
    assert analyse(RIVER_PASSAGE).terms == RIVER_TERMS
    (wrong,), model = _build(
        True, ABRASION, "abrasion", "term", RIVER_PASSAGE, passage_terms=RIVER_TERMS
    )
    assert sorted(wrong) == ["erosion", "saltation", "traction"]
    assert "Q: Is a bend a process?\nA:" in model.kind_questions
    assert "Q: Is meanders a process?\nA:" not in model.kind_questions


NILE_FACT = "The floodplain of the Nile in Egypt supported one of the earliest civilisations."
NILE = Script(
    NILE_FACT, ["Which river's floodplain supported an early civilisation?"], ["Amazon"], {}
)


def test_the_keys_siblings_in_a_list_and_the_passages_terms_are_candidates() -> None:
    """The generator offers one wrong answer: the key's siblings in the passage's list fill
    the set (the passage's defined terms join the candidates too, and the name filter drops
    them: the key is a name)."""
    passage = f"{NILE_FACT} Rivers such as the Mississippi, the Ganges and the Nile end in deltas."
    (wrong,), _ = _build(
        False, NILE, "Nile", "entity", passage=passage, passage_terms={"levees": "bank"}
    )
    assert sorted(wrong) == ["Amazon", "Ganges", "Mississippi"]


def test_a_word_the_passage_gives_twice_is_offered_once() -> None:
    """A sibling that is also a target's answer and a defined term is one candidate: the
    item's evidence names no "duplicate" the builder made itself."""
    passage = f"{NILE_FACT} Rivers such as the Mississippi, the Ganges and the Nile end in deltas."
    ctx = _context(
        ScriptedModel(NILE),
        passage,
        passage_answers=["Ganges", "Nile", "Egypt", "Ganges"],
        passage_terms={"Ganges": None},
    )
    (item,) = build_candidates(_target(NILE_FACT, "Nile", "entity"), "mcq", 2, ctx).candidates
    assert sorted(o.text for o in item.options if not o.is_key) == [
        "Amazon",
        "Ganges",
        "Mississippi",
    ]
    dropped = item.provenance["distractors_dropped"]
    assert not any("duplicate" in d["reason"] for d in dropped)


CHANNEL_FACT = "In the upper course the channel deepens quickly by abrasion."
CHANNEL = Script(
    CHANNEL_FACT,
    # The first asks for a place (a standard bench item at 402a529, key abrasion); the
    # second for a process.
    ["Where does the channel deepen in a V-shaped valley?", "What process deepens the channel?"],
    ["erosion", "saltation", "traction"],
    {"Q: Is abrasion a place?": -3.0, "Q: Is abrasion a process?": 1.5}
    | {f"Q: Is {name} a process?": 1.0 for name in ["erosion", "saltation", "traction"]}
    | {f"Q: Is abrasion a kind of {name}?": -1.0 for name in ["erosion", "saltation", "traction"]}
    # The passage's own phrases (the analysis offers them after the model's): no processes.
    | {f"Q: Is {name} a process?": -2.0 for name in ["upper course", "channel"]}
    | {f"Q: Is abrasion a kind of {name}?": -1.0 for name in ["upper course", "channel"]},
)


def _channel_build(qa_knows_kinds: bool) -> tuple[list[str], list[str], ScriptedModel]:
    model = ScriptedModel(CHANNEL)
    ctx = _context(model, CHANNEL_FACT, qa=model, qa_knows_kinds=qa_knows_kinds)
    built = build_candidates(_target(CHANNEL_FACT, "abrasion", "term"), "mcq", 3, ctx)
    return [c.stem for c in built.candidates], built.notes, model


def test_a_question_asking_for_a_place_its_key_is_not_is_dropped() -> None:
    stems, notes, model = _channel_build(qa_knows_kinds=True)
    assert stems == ["What process deepens the channel?"]
    assert any("asks for a place" in n and "Is abrasion a place?" in n for n in notes)
    # The key is read once per kind, not once per question.
    assert model.kind_questions.count("Q: Is abrasion a place?\nA:") == 1


def test_a_qa_model_that_cannot_tell_kinds_keeps_the_question() -> None:
    stems, _, model = _channel_build(qa_knows_kinds=False)
    assert len(stems) == 2
    assert "Q: Is abrasion a place?\nA:" not in model.kind_questions


DELTAS_FACT = "Rivers such as the Mississippi, the Ganges and the Nile end in deltas."
DELTAS = Script(DELTAS_FACT, ["Which river ends in a delta?"], ["Amazon", "Thames", "Danube"], {})


def test_the_keys_fellow_members_in_its_own_sentence_are_right_too() -> None:
    """Asked from the list's own sentence, the key's siblings are right too (the sentence says
    the same of all three); asked from another sentence they are wrong answers (the test
    above)."""
    ctx = _context(ScriptedModel(DELTAS), DELTAS_FACT)
    (item,) = build_candidates(_target(DELTAS_FACT, "Nile", "entity"), "mcq", 2, ctx).candidates
    assert sorted(o.text for o in item.options if not o.is_key) == ["Amazon", "Danube", "Thames"]
    dropped = {d["text"]: d["reason"] for d in item.provenance["distractors_dropped"]}
    assert "right too" in dropped["Mississippi"] and "right too" in dropped["Ganges"]


BONN_FACT = "Ludwig van Beethoven was born in Bonn in December 1770."
BONN = Script(
    BONN_FACT,
    # "Where ...?" names no kind: the parse types the key (Bonn) as a place.
    ["Where was the composer born?"],
    ["Vienna", "Ludwig van Beethoven", "Salzburg", "Leipzig"],
    {"Q: Is Bonn a place?": 2.5, "Q: Is Ludwig van Beethoven a place?": -3.0}
    | {f"Q: Is {name} a place?": 2.2 for name in ["Vienna", "Salzburg", "Leipzig"]},
)


def test_a_key_the_parse_types_as_a_place_asks_its_wrong_answers_to_be_places() -> None:
    """A composer offered among places for "Where ...?" (the generation bench, items 7 and
    8 at 9f3c715): where no question names a kind, the key's entity type gives it, told to
    the generator and asked of each candidate."""
    (wrong,), model = _build(True, BONN, "Bonn", "entity")
    assert sorted(wrong) == ["Leipzig", "Salzburg", "Vienna"]
    assert "Q: Is Ludwig van Beethoven a place?\nA:" in model.kind_questions
    assert "The question asks for a place" in model.distractor_requests[0]


def test_a_key_of_no_checked_entity_type_asks_no_kind() -> None:
    """A date is no person or place: its wrong answers are not asked about a kind (dates
    have their own checks)."""
    script = Script(BONN_FACT, ["When was Beethoven born in Bonn?"], ["1769", "1771", "1780"], {})
    (wrong,), model = _build(True, script, "December 1770", "entity")
    assert model.kind_questions == [] and len(wrong) == 3
    assert "asks for" not in model.distractor_requests[0]


RULE_FACT = "The 68–95–99.7 rule gives the share of values near the mean."


def test_a_name_with_numbers_in_it_gets_no_nearby_values() -> None:
    """The rule's name is a phrase, not a number: "102–95–99.7 rule" (a bench item) was a
    nearby value of its first number."""
    wrong = ["law of large numbers", "Chebyshev's inequality"]
    script = Script(RULE_FACT, ["Which rule gives the share of values near the mean?"], wrong, {})
    options, _ = _build(False, script, "68–95–99.7 rule", "phrase")
    # Two of the model's wrong answers are too few: no third is made up from the name.
    assert not any("95–99.7" in w for ws in options for w in ws)


SYMPHONIES_FACT = "Beethoven's output includes 9 symphonies and 32 piano sonatas."


def test_a_counts_wrong_answers_keep_the_noun_it_counts() -> None:
    """The bench's "9 symphonies" got 32, 4 and 1: bare numbers beside a key with its noun,
    while its own nearby values ("8 symphonies"), read as noun phrases, were dropped."""
    script = Script(SYMPHONIES_FACT, ["How many symphonies did Beethoven write?"], ["4", "1"], {})
    (wrong,), _ = _build(False, script, "9 symphonies", "number")
    assert len(wrong) == 3 and all(w.endswith(" symphonies") for w in wrong)


def test_two_good_wrong_answers_make_a_three_option_item() -> None:
    """Only Euripides and Aeschylus are playwrights: the item comes with those two (three
    options), not dropped for want of a third, nor filled with a character of the play."""
    wrong_ones = ["Creon", "Euripides", "King of Thebes", "Aeschylus"]
    two = Script(FACT, STEMS[1:], wrong_ones, SOPHOCLES.says_yes)
    (wrong,), _ = _build(True, two)
    assert sorted(wrong) == ["Aeschylus", "Euripides"]


def test_one_good_wrong_answer_makes_no_item() -> None:
    one = Script(FACT, STEMS[1:], ["Creon", "Euripides", "King of Thebes"], SOPHOCLES.says_yes)
    options, _ = _build(True, one)
    assert options == []


THEATRE_FACT = "The company had previously performed at the Curtain in Shoreditch."
THEATRE = Script(
    THEATRE_FACT,
    ["Where had the company performed before?"],
    ["Southwark", "Sam Wanamaker", "Bankside", "Park Street"],
    {"Q: Is Curtain in Shoreditch a place?": 1.5, "Q: Is Sam Wanamaker a place?": -3.0}
    | {f"Q: Is {name} a place?": 1.8 for name in ["Southwark", "Bankside", "Park Street"]},
)


def test_a_where_question_asks_its_wrong_answers_to_be_places() -> None:
    """A person among places for "Where ...?" (the Globe Theatre's bench item at 5e87ffe,
    "Wanamaker"), where the key is no entity the parse types as a place."""
    (wrong,), model = _build(True, THEATRE, "Curtain in Shoreditch", "phrase")
    assert sorted(wrong) == ["Bankside", "Park Street", "Southwark"]
    assert "Q: Is Sam Wanamaker a place?\nA:" in model.kind_questions
    assert "The question asks for a place" in model.distractor_requests[0]
