"""What a multiple-choice item's wrong answers say about it, read without a model (issue 45).

Each option is read by spaCy's English pipeline (`quality/option_reading.py`) where the key
stands: in the item's sentence with the blank filled (a fill-in-the-blank item), else in the
passage's sentence that holds the key (a question whose key the passage states), else on its
own. From that reading each wrong answer gets its diagnostics:

- a duplicate: the same words as the key or as another option once case, determiners and
  punctuation are set aside ("the Nile" and "Nile.");
- how its form differs from the key's: the part of speech of its head word, its form
  (plural against singular, a past tense against a base form: the tagger's fine tag), the
  kind of name (a person against a place), a number against words;
- whether the passage holds its words, in order.

Which of these make which flag was decided by measurement on CELA's labelled cloze tests
(`bench/option_checks.py`; docs/evaluation.md, "Wrong answers judged by reading"), and each
flag's severity follows the precision measured there (`metrics/flag_policy.py`):

- `option-other-kind` ("a wrong answer no one would choose"): the differences in
  `OTHER_KIND_PARTS` for the way the option was read;
- `option-other-form`: the differences in `OTHER_FORM_PARTS`, a hint;
- `option-may-be-correct`: a wrong answer that says the same as the key. A wrong answer the
  passage holds is not raised: on CELA such blanks had more than one correct option no more
  often than the others (nor were their wrong answers more often working ones, source by
  source), so `in_passage` is kept in the diagnoses and raises nothing;
- `option-duplicate`: two wrong answers that say the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from quizsmith.domain import Flag, Item
from quizsmith.quality.option_reading import (
    Form,
    Reading,
    holds,
    passage_words,
    read_forms,
    words,
)

OTHER_KIND: Final = "option-other-kind"
OTHER_FORM: Final = "option-other-form"
MAY_BE_CORRECT: Final = "option-may-be-correct"
DUPLICATE: Final = "option-duplicate"
FLAG_CODES: Final = (OTHER_KIND, OTHER_FORM, MAY_BE_CORRECT, DUPLICATE)
#: Where a result's evidence keeps the diagnoses.
EVIDENCE_KEY: Final = "option_checks"

#: The differences from the key's form that make a wrong answer "not the same kind of answer",
#: per reading (bench/option_checks.py, `shipped_parts`): those whose flag reached precision
#: 0.6 against CELA's "distractors nobody would choose", chosen on four folds of tests and
#: judged on the fifth (in the sentence: 0.69 [0.62, 0.76], recall 0.83). Read on its own, an
#: option's part of speech is a guess ("head": noun or verb?) and no choice of parts held
#: 0.6 out of fold (0.56 [0.46, 0.66]), so there every difference is a hint.
OTHER_KIND_PARTS: Final[dict[str, frozenset[str]]] = {
    "sentence": frozenset({"pos", "number"}),
    "alone": frozenset(),
}
#: The differences raised as a hint (`option-other-form`): of the rest, those that went with
#: such distractors more often than the base rate (the interval's low end above it) on 20
#: or more blanks. Not the kind of name:
#: CELA's one-word options hold 5 blanks with one, too few to measure, and the small pipeline
#: types names at random ("Oxygen" a person); it is kept in the diagnoses, raising nothing.
OTHER_FORM_PARTS: Final[dict[str, frozenset[str]]] = {
    "sentence": frozenset({"tag"}),
    "alone": frozenset({"pos", "number"}),
}

#: What a name's entity type is, in a teacher's words (spaCy's own descriptions are lists:
#: "Countries, cities, states").
_ENTITY_WORDS: Final = {
    "PERSON": "a person",
    "NORP": "a nationality or group",
    "FAC": "a place",
    "GPE": "a place",
    "LOC": "a place",
    "ORG": "an organisation",
    "PRODUCT": "a product",
    "EVENT": "an event",
    "WORK_OF_ART": "a title",
    "LAW": "a law",
    "LANGUAGE": "a language",
    "DATE": "a date",
    "TIME": "a time",
    "PERCENT": "a percentage",
    "MONEY": "an amount of money",
    "QUANTITY": "a quantity",
    "ORDINAL": "an ordinal",
    "CARDINAL": "a number",
}
#: Parts of speech that are one kind for a wrong answer. The small pipeline tags a name as a
#: common noun at random ("Lyon" beside "Paris"; analysis.py has more), and "was" beside
#: "sent" is a verb all the same. On CELA, grouped: precision 0.73, recall 0.79 against
#: distractors nobody would choose; apart: 0.72 and 0.83 (bench/option_checks.py).
_POS_GROUPS: Final = {"PROPN": "NOUN", "AUX": "VERB"}
#: Entity types that are one kind for a wrong answer: a city for a country is a fair choice.
_ENTITY_GROUPS: Final = {"GPE": "place", "LOC": "place", "FAC": "place"}


@dataclass(frozen=True)
class Difference:
    """One way a wrong answer's form differs from the key's."""

    #: "pos" (part of speech), "tag" (form: number, tense), "entity" (kind of name),
    #: "number" (a number against words).
    part: str
    #: The difference in words: "“ran” is a verb where the key “apple” is a noun".
    text: str


@dataclass(frozen=True)
class OptionDiagnosis:
    """What one wrong answer's reading says."""

    text: str
    reading: Reading = "sentence"
    #: The option it repeats (the key or an earlier wrong answer), None when it repeats none.
    duplicate_of: str | None = None
    duplicates_key: bool = False
    differences: tuple[Difference, ...] = ()
    #: The passage holds the option's words, in order.
    in_passage: bool = False
    #: The coarse part of speech of its head word as read ("" when it has no word).
    head_pos: str = ""

    @property
    def other_kind(self) -> list[Difference]:
        """The differences that make it "not the same kind of answer as the key"."""
        parts = OTHER_KIND_PARTS[self.reading]
        return [d for d in self.differences if d.part in parts]

    @property
    def other_form(self) -> list[Difference]:
        """The differences right too rarely for a warning (a hint)."""
        parts = OTHER_FORM_PARTS[self.reading]
        return [d for d in self.differences if d.part in parts]

    def reasons(self) -> list[str]:
        """What its reading says, in a teacher's words."""
        out = []
        if self.duplicate_of is not None:
            what = "the key" if self.duplicates_key else "another option"
            out.append(f"{_q(self.text)} says the same as {what}, {_q(self.duplicate_of)}")
        out += [d.text for d in self.differences]
        if self.in_passage:
            out.append(f"the passage uses {_q(self.text)} too")
        return out

    def to_dict(self) -> dict[str, Any]:
        """As a result's evidence keeps it (JSON)."""
        return {
            "text": self.text,
            "reading": self.reading,
            "duplicate_of": self.duplicate_of,
            "duplicates_key": self.duplicates_key,
            "differences": [[d.part, d.text] for d in self.differences],
            "in_passage": self.in_passage,
            "head_pos": self.head_pos,
        }

    @classmethod
    def from_dict(cls, data: Any) -> OptionDiagnosis | None:
        """Read back from evidence; None for anything that is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return None
        reading: Reading = "alone" if data.get("reading") == "alone" else "sentence"
        duplicate = data.get("duplicate_of")
        return cls(
            data["text"],
            reading,
            duplicate_of=duplicate if isinstance(duplicate, str) else None,
            duplicates_key=bool(data.get("duplicates_key")),
            differences=tuple(
                Difference(str(d[0]), str(d[1]))
                for d in data.get("differences") or ()
                if isinstance(d, list | tuple) and len(d) == 2
            ),
            in_passage=bool(data.get("in_passage")),
            head_pos=str(data.get("head_pos") or ""),
        )


def _q(text: str) -> str:
    return f"\u201c{text}\u201d"


def _pos_words(pos: str) -> str:
    import spacy

    noun = spacy.explain(pos) or pos.lower()
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _tag_words(tag: str) -> str:
    import spacy

    return spacy.explain(tag) or tag


def differences(option: str, form: Form, key: str, key_form: Form) -> list[Difference]:
    """How `option`'s form differs from the key's, each in words."""
    found = []
    o, k = _q(option), _q(key)
    if form.number != key_form.number:
        found.append(
            Difference(
                "number",
                f"{o} is a number where the key {k} is not"
                if form.number
                else f"{o} is not a number where the key {k} is one",
            )
        )
    pos, key_pos = _POS_GROUPS.get(form.pos, form.pos), _POS_GROUPS.get(key_form.pos, key_form.pos)
    if pos != key_pos and not (form.number and key_form.number):
        found.append(
            Difference(
                "pos",
                f"{o} is {_pos_words(form.pos)} where the key {k} is {_pos_words(key_form.pos)}",
            )
        )
    elif form.tag != key_form.tag and form.pos == key_form.pos:
        found.append(
            Difference(
                "tag",
                f"{o} ({_tag_words(form.tag)}) is not in the form of the key {k} "
                f"({_tag_words(key_form.tag)})",
            )
        )
    group = _ENTITY_GROUPS.get(form.entity, form.entity)
    key_group = _ENTITY_GROUPS.get(key_form.entity, key_form.entity)
    if key_group and group and group != key_group:
        found.append(
            Difference(
                "entity",
                f"{o} is {_ENTITY_WORDS.get(form.entity, form.entity)} where the key {k} is "
                f"{_ENTITY_WORDS.get(key_form.entity, key_form.entity)}",
            )
        )
    return found


def diagnose(
    stem: str, key: str, distractors: Sequence[str], passage: str = ""
) -> list[OptionDiagnosis]:
    """Each wrong answer's diagnostics, in the order given. A `stem` with a blank (a run of
    underscores) is read with each option in the blank."""
    forms, reading = read_forms(stem, key, [key, *distractors], passage)
    key_form = forms[0]
    key_words = words(key)
    hay = passage_words(passage) if passage.strip() else ()
    seen: list[tuple[str, tuple[str, ...]]] = []
    out = []
    for option, form in zip(distractors, forms[1:], strict=True):
        mine = words(option)
        of_key = mine == key_words
        duplicate = key if of_key else next((t for t, w in seen if w == mine), None)
        seen.append((option, mine))
        found: tuple[Difference, ...] = ()
        if form is not None and key_form is not None and duplicate is None:
            found = tuple(differences(option, form, key, key_form))
        out.append(
            OptionDiagnosis(
                option,
                reading,
                duplicate_of=duplicate,
                duplicates_key=of_key,
                differences=found,
                in_passage=not of_key and holds(hay, mine),
                head_pos=form.pos if form is not None else "",
            )
        )
    return out


def option_flags(diagnoses: Sequence[OptionDiagnosis], metric: str) -> list[Flag]:
    """The review flags an item's wrong answers raise, one per code, each naming the options
    that raise it (severities: metrics/flag_policy.py)."""
    found = []

    def add(code: str, lead: str, parts: list[str]) -> None:
        if parts:
            found.append(Flag(code, f"{lead}: {'; '.join(parts)}.", metric))

    add(
        MAY_BE_CORRECT,
        "Another option may also be correct",
        [
            f"{_q(d.text)} says the same as the key {_q(d.duplicate_of or '')}"
            for d in diagnoses
            if d.duplicates_key
        ],
    )
    add(
        DUPLICATE,
        "Two wrong answers say the same",
        [
            f"{_q(d.text)} and {_q(d.duplicate_of or '')}"
            for d in diagnoses
            if d.duplicate_of is not None and not d.duplicates_key
        ],
    )
    add(
        OTHER_KIND,
        "A wrong answer no one would choose, not the same kind of answer as the key",
        [d.other_kind[0].text for d in diagnoses if d.other_kind],
    )
    add(
        OTHER_FORM,
        "A wrong answer in another form than the key's, which may give it away",
        [d.other_form[0].text for d in diagnoses if d.other_form and not d.other_kind],
    )
    return found


def item_diagnoses(item: Item) -> list[OptionDiagnosis] | None:
    """The diagnoses of a multiple-choice or fill-in-the-blank item's wrong answers; None for
    an item with no wrong answers to read."""
    wrong = item.distractors
    if item.type not in ("mcq", "cloze") or not wrong or not item.key.strip():
        return None
    passage = item.passage.text if item.passage else ""
    return diagnose(item.stem, item.key, wrong, passage)


def item_evidence(item: Item) -> list[dict[str, Any]] | None:
    """The diagnoses as a result's evidence keeps them; None where there is nothing to read
    or no English parser (the estimate does not fail for want of these checks)."""
    from quizsmith.errors import ModelNotFoundError

    try:
        found = item_diagnoses(item)
    except ModelNotFoundError:
        return None
    return None if found is None else [d.to_dict() for d in found]


def evidence_flags(evidence: dict[str, Any], metric: str) -> list[Flag]:
    """The flags of the diagnoses a result's evidence keeps (`item_evidence`)."""
    kept = evidence.get(EVIDENCE_KEY)
    if not isinstance(kept, list):
        return []
    found = [OptionDiagnosis.from_dict(d) for d in kept]
    return option_flags([d for d in found if d is not None], metric)
