"""A target's wrong-answer candidates, checked: the question-writing model's, the passage's
own phrases of the key's kind, nearby numbers, run through `distractors.filter_distractors`
with the QA model's readings. Used by the builder (multiple choice, false statements) and by
the editor's "more wrong answers" (more_distractors.py)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from quizsmith.generation import distractors as dis
from quizsmith.generation import writer
from quizsmith.generation.analysis import Constituent, PassageAnalysis
from quizsmith.generation.build_context import BuildContext
from quizsmith.generation.key_kinds import kind_of_key
from quizsmith.generation.target import Target


def wrong_answers(
    question: str,
    target: Target,
    ctx: BuildContext,
    seed: int,
    asked: str | None = None,
    described: Mapping[str, str | None] | None = None,
    earlier: Sequence[str] = (),
) -> tuple[dis.FilterOutcome, str]:
    """(filtered candidates, note): `earlier` (an earlier set's survivors), the model's
    candidates, then the passage's own phrases of
    the key's kind (its siblings in the passage's lists, the other constituents of its entity
    group, unit or kind, the defined terms), then nearby numbers; the filters keep those of
    the key's kind and form, the QA model then orders them and, where `asked` names the kind
    of thing the question asks for (where none does, a place for "Where ...?", else a person
    or place the key is: `dis.kind_of_entity`; for a common-noun key, the kind the QA model
    says it is: `key_kinds.kind_of_key`), checks each is one
    (`dis.filter_distractors`). The quiz's other answers and terms `unlike_the_key` stand in
    last."""
    ctx.cancel.raise_if_cancelled()
    key_c = ctx.analysis.find(target.answer)
    if asked is None:
        # No question names the kind: "Where ...?" asks for a place, whatever the parse
        # types the key as ("Theatre in Shoreditch", with "Wanamaker" among its wrong answers
        # on the bench at 5e87ffe); a key the parse types as a person or a place asks for
        # one (the model is told so, and each candidate is checked, as for a named kind).
        where = dis.kind_asked_of_key(question) == dis.PLACE
        asked = dis.PLACE if where else dis.kind_of_entity(key_c.group if key_c else None)
        if (
            asked is None
            and ctx.judge is not None
            and _common_noun_question(question, key_c, target)
        ):
            # A common-noun key of a question (not a false statement's "Complete: ..."): the QA
            # model says what kind of thing it is ("Apis mellifera": a species), which is then
            # asked of each candidate (studies/key_kinds.py measured it on questions).
            said = (question, target.answer)
            if said not in ctx.key_kinds:
                ctx.key_kinds[said] = kind_of_key(ctx.judge, question, target.answer)
            asked = ctx.key_kinds[said]
    from_model, note = writer.propose_distractors(
        ctx.generator, ctx.profile, question, target.answer, target.fact, seed=seed, kind=asked
    )
    rng = random.Random(seed)
    others = [*ctx.passage_answers, *ctx.passage_terms]
    from_passage = dis.same_passage_candidates(ctx.analysis, target.answer, rng, others)
    last = unlike_the_key(ctx.analysis, target.answer, (t for t in others if t not in from_model))
    # The model's first: the passage's phrases of the key's entity group are not always of
    # its kind (Egypt for the Nile: both places), and the model reads the question.
    # Nearby values for a number or a date, not for a name or term with a number in it (the
    # "68–95–99.7 rule" gave "102–95–99.7 rule" on the bench); a key the analysis does not
    # hold (a teacher's pinned answer) is read by its form.
    numeric = key_c is None or key_c.kind in ("number", "date")
    variants = dis.numeric_variants(target.answer, rng) if numeric else []
    pool = [*earlier, *from_model, *from_passage, *variants]
    ctx.cancel.raise_if_cancelled()
    reader = (
        dis.qa_reading(ctx.qa, target.fact, question, target.answer)
        if ctx.qa is not None and ctx.qa.can_logprob
        else None
    )
    judge = ctx.judge
    kind = dis.kind_reading(judge, asked, described) if judge and asked else None
    broader = dis.broader_reading(judge, target.answer) if judge else None
    outcome = dis.filter_distractors(
        target.answer,
        pool,
        embed=ctx.embed,
        reader=reader,
        question=question,
        aliases=ctx.analysis.aliases.get(target.answer.casefold(), []),
        fellow_members=ctx.analysis.siblings(target.answer, target.fact),
        config=ctx.filter_config,
        kind=kind,
        broader=broader,
        passage=ctx.passage.text,
        analysis=ctx.analysis,
        last=last,
    )
    return outcome, note


#: The constituent kinds of a common-noun key (not a name, a number or a date).
PHRASE_KINDS = ("phrase", "term")


def _common_noun_question(question: str, key_c: Constituent | None, target: Target) -> bool:
    """Whether `question` is a question (not a false statement's "Complete: ...") whose key
    is a common noun; a key the analysis does not hold is parsed only here, where it counts."""
    if not question.endswith("?"):
        return False
    read_as = key_c or dis.parse_phrase(target.answer)
    return read_as is not None and read_as.kind in PHRASE_KINDS


def unlike_the_key(analysis: PassageAnalysis, key: str, texts: Iterable[str]) -> list[str]:
    """Those of `texts` (the quiz's other answers, the passage's terms) that are, for a
    common-noun phrase key, likely another kind of thing: not one of the key's list, not of
    its head noun nor of the noun the passage calls it ("a process called traction", "a
    process called saltation"), and not a term beside a term the passage defines too ("sire"
    and "dam"). Of 220 such candidates read, 82% were another kind ("Most geologists" among
    the materials of tectonic plates); dropping them cost items (studies/other_answers_kind.
    py), so they only stand in where the model's and the passage's own fall short. The key's
    side is read once: each `parse_phrase` is a parse."""
    key_c = analysis.find(key) or dis.parse_phrase(key)
    if key_c is None or key_c.kind not in PHRASE_KINDS:
        return []
    if any(c.text == key and c.kind == "name" for c in analysis.constituents):
        return []  # a name the parser reads as one elsewhere ("Beethoven" beside Haydn)
    siblings, key_nouns = set(analysis.siblings(key)), nouns_called(analysis, key, key_c)
    return [
        t
        for t in texts
        if not {key, t} <= analysis.terms.keys()
        and t not in siblings
        and not key_nouns & nouns_called(analysis, t)
    ]


def nouns_called(
    analysis: PassageAnalysis, phrase: str, parsed: Constituent | None = None
) -> set[str]:
    """A phrase's head noun and the noun the passage calls it, where it does."""
    c = parsed or analysis.find(phrase) or dis.parse_phrase(phrase)
    return {n for n in (c.head if c else None, analysis.terms.get(phrase)) if n}


def options_of_question(
    question: str, key: str, outcome: dis.FilterOutcome, wanted: int, passage: str, fewest: int
) -> tuple[list[str], list[tuple[str, str]]]:
    """(the wrong answers for one of a target's questions, the kept ones left out with why):
    the best survivors it does not name (`dis.options_for`), without those likely of another
    kind or form than the key where `fewest` others are left: those the option check reads
    so, and the stand-ins (`unlike_the_key`). That check raises the item's "a wrong answer
    no one would choose" warning (quality/option_checks.py; precision 0.69 [0.62, 0.76],
    recall 0.83 on CELA's labelled distractors, out of fold): a generation that delivers what
    its own review then warns of left items to fix ("Innocent III" for the Magna Carta, on
    the generation bench); its hint of another form (a plural beside a singular key:
    "quatrains" for iambic pentameter; precision 0.60-0.62 on CELA) was on 16 of the
    standard bench's 120 items at cdaf489, none read usable. A spare takes such an option's
    place; where none is left the item has fewer options (`FilterConfig.fewest`), and only
    below that do they fill in, and only a full set: two wrong answers are two good ones."""
    from quizsmith.quality.option_checks import diagnose

    fit = dis.options_for(question, outcome, len(outcome.kept) + len(outcome.spare))
    diagnoses = diagnose(question, key, fit, passage)
    other_kind = {d.text: d.other_kind[0].text for d in diagnoses if d.other_kind}
    for d in diagnoses:
        # Not a name's number: the tagger guesses it from the letters ("Sophocles" and
        # "Ganges" read as plurals beside "Aeschylus" and "Nile").
        form = [x for x in d.other_form if not (x.part == "tag" and d.head_pos == "PROPN")]
        if form and d.text not in other_kind:
            other_kind[d.text] = form[0].text
    weak = {*other_kind, *outcome.stand_ins}
    good = [d for d in fit if d not in weak]
    if len(good) >= fewest:
        chosen = good[:wanted]
    elif len(fit) >= wanted:  # a full set, as before: its weak ones last
        chosen = [*good, *(d for d in fit if d in weak)][:wanted]
    else:  # never a short set with a weak one in it: too few, the fact gives no item
        chosen = good
    left_out = [(d, dis.NAMED_IN_QUESTION) for d in outcome.kept if d not in fit]
    instead = "a spare took its place" if len(chosen) == wanted else "the item has fewer options"
    left_out += [
        (d, f"{why} (a wrong answer no one would choose, and {instead})")
        for d, why in other_kind.items()
        if d not in chosen and d in outcome.kept
    ]
    left_out += [
        (d, f"{STAND_IN} ({instead})")
        for d in outcome.stand_ins
        if d not in chosen and d not in other_kind and d in outcome.kept
    ]
    return chosen, left_out


#: Why a stand-in (`unlike_the_key`) was left out of an item.
STAND_IN = "one of the quiz's other answers or the passage's terms, likely another kind of answer"
