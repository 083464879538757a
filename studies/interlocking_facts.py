"""Study: does letting a fact wait whose sentence names an earlier item's key keep a quiz's
questions from giving each other away (issue 44)?

On the standard bench's 120 items at cdaf489, 11 questions named an earlier item's key
("Where was Beethoven born?" after "Who composed the Third Symphony?"); 12 later items came
from a sentence that names an earlier key, and 10 of their questions named it. The pipeline
(`pipeline._passes`) now lets such a fact wait until the others were tried. This simulates a
5-item quiz on passages none of it was written for (QGEval's 200, NACo's 635 SQuAD
contexts), as the app chooses its facts (`study_passages.app_targets`, the chat generator's
6n spare facts), each fact taken to give an item with its own answer as the key: how many
pairs of the quiz's facts interlock (a later fact's sentence names an earlier key) in the
app's order, and with the waiting rule; and how many of the five facts the rule changes.
No model runs: whether a changed fact gives as good an item is for the bench to read.
A variant, not shipped, also puts last every fact whose answer two or more of the other
facts' sentences name (the passage's subject, whose question the others give away).
Run: PYTHONPATH=app .venv/bin/python studies/interlocking_facts.py
"""

from study_passages import app_targets, qgeval, squad

from quizsmith.generation.pipeline import given_away

N = 5


def interlocked(quiz):
    return sum(
        given_away(earlier.answer, [later.fact])
        for i, later in enumerate(quiz)
        for earlier in quiz[:i]
    )


def with_waiting(targets):
    quiz, waiting = [], []
    for target in targets:
        if any(given_away(t.answer, [target.fact]) for t in quiz):
            waiting.append(target)
        else:
            quiz.append(target)
    return (quiz + waiting)[:N]


def subject_last(targets, k=2):
    def named(t):
        return sum(given_away(t.answer, [o.fact]) for o in targets if o.fact != t.fact)

    counts = [named(t) for t in targets]
    ordered = [t for t, c in zip(targets, counts, strict=True) if c < k] + [
        t for t, c in zip(targets, counts, strict=True) if c >= k
    ]
    return with_waiting(ordered)


for name, passages in (("QGEval", qgeval()), ("SQuAD", squad())):
    quizzes = before = after = changed = subject_pairs = subject_changed = 0
    for text in passages:
        _, targets = app_targets(text, 6 * N)
        if len(targets) < N:
            continue
        quizzes += 1
        app_order, waited = targets[:N], with_waiting(targets)
        before += interlocked(app_order)
        after += interlocked(waited)
        changed += len({id(t) for t in waited} - {id(t) for t in app_order})
        variant = subject_last(targets)
        subject_pairs += interlocked(variant)
        subject_changed += len({id(t) for t in variant} - {id(t) for t in app_order})
    print(
        f"{name}: {quizzes} quizzes of {N} facts; interlocking pairs {before} in the app's "
        f"order, {after} with the waiting rule; facts changed {changed} of {quizzes * N}; "
        f"the subject last as well: {subject_pairs} pairs, {subject_changed} facts changed"
    )
