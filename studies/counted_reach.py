"""Study: a number takes the noun it counts across that noun's own modifiers (issue 44).

`analysis._with_counted_noun` took the counted noun only where it follows the number at once
("9 symphonies"); the bench's "118 confirmed elements" and "5 piano concertos" became bare
numbers ("118"), whose wrong answers then came with or without a noun at random (bench
readings 14 and 91 at 53fd232). The rule now takes the parser's counted noun (the number's
`nummod` head, a common noun) up to COUNTED_REACH tokens on, where every word between is a
common-word modifier (no determiner, conjunction, mark, hyphen or proper noun). Every number
constituent the rule changes is printed beside the one the previous rule made, to read.
With --squad: NACo's 635 SQuAD contexts, where the rule was shaped (read while it was
written); without: QGEval's 200 and CELA's 100 passages, where it is measured (QGEval's
were read for the previous rule's study, `number_units`, none of them for this extension).
Result: see studies/README.md (`counted_reach`).
Run: .venv/bin/python studies/counted_reach.py [--squad]
"""

import sys

from study_passages import cela, qgeval, squad

from quizsmith.generation import analysis as an


def previous_rule(tokens):  # the rule at 1073c0a: the next word only, a common noun
    last = tokens[-1]
    doc = last.doc
    after = last.i + 1
    while after < len(doc) and doc[after].is_space:
        after += 1
    following = doc[after] if after < len(doc) else None
    first = tokens[0].i
    names_one = first > 0 and doc[first - 1].pos_ in ("NOUN", "PROPN")
    if (
        following is not None
        and not names_one
        and last.dep_ == "nummod"
        and last.head.i == following.i
        and following.pos_ == "NOUN"
        and not following.ent_type_
    ):
        return [*tokens, following]
    return tokens


# Where the rule was shaped (read while it was written), or where it is measured (not).
passages = squad() if "--squad" in sys.argv else qgeval() + cela()
shipped = an._with_counted_noun
changed, numbers = [], 0
for text in passages:
    an.analyse.cache_clear()
    an._with_counted_noun = previous_rule
    before = {c.start: c.text for c in an.analyse(text).constituents if c.kind == "number"}
    an.analyse.cache_clear()
    an._with_counted_noun = shipped
    analysis = an.analyse(text)
    for c in analysis.constituents:
        if c.kind != "number":
            continue
        numbers += 1
        if before.get(c.start) != c.text:
            sentence = analysis.sentences[c.sentence_index].text
            at = sentence.find(c.text)
            context = sentence[max(0, at - 50) : at + len(c.text) + 40].replace("\n", " ")
            changed.append((before.get(c.start), c.text, context))
print("passages", len(passages), "number constituents", numbers, "changed", len(changed))
for i, (old, new, context) in enumerate(changed):
    print(f"{i} | {old!r} -> {new!r} | ...{context}...")
