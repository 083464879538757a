"""Study: true/false statements restated by the standard profile's 1.5B chat generator.

For each of the bench's 24 passages (copied to /tmp/passages/*.txt from bench/passages.toml),
the first five targets the app would choose; every second one made false by swapping its
answer for another phrase of the passage of the same kind. Each statement restated once,
greedy (generation/true_false.reword), checked by rewording_problem. Per-item results in
studies/tf_restatement.jsonl. Run: .venv/bin/python studies/tf_restatement.py OUT.jsonl
"""
import json, random, sys, time
from pathlib import Path
from quizsmith.generation.analysis import analyse
from quizsmith.generation.constituent_targets import passage_targets
from quizsmith.generation.targets import choose_targets
from quizsmith.generation.true_false import reword, shown_statement
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings

out = Path(sys.argv[1]); names = sorted(Path("/tmp/passages").glob("*.txt"))
shard, shards = map(int, sys.argv[2].split("/")) if len(sys.argv) > 2 else (0, 1)
gen = provider_for_role("generator", Settings(n_threads=1, profile="standard"))
done = {json.loads(l)["id"] for l in out.read_text().splitlines()} if out.exists() else set()
for pi, path in enumerate(names):
    if pi % shards != shard: continue
    text = path.read_text(encoding="utf-8")
    a = analyse(text)
    targets = choose_targets(passage_targets(a), 5, passage_text=text, sentences=a.sentences)
    rng = random.Random(pi)
    for i, t in enumerate(targets):
        tid = f"{path.stem}#{i}"
        if tid in done: continue
        key_c = next((c for c in a.constituents if c.start == t.answer_start and c.text == t.answer), None)
        drop = None; keep = t.answer; statement = t.fact
        if i % 2 == 1 and key_c is not None:
            others = [c for c in a.constituents if c.group == key_c.group and c.text.casefold() != t.answer.casefold() and c.text.casefold() not in t.fact.casefold()]
            if others:
                o = rng.choice(others)
                at = t.answer_start - t.fact_start
                statement = t.fact[:at] + o.text + t.fact[at + len(t.answer):]
                drop, keep = t.answer, o.text
        shown = shown_statement(statement)
        started = time.perf_counter()
        w = reword(gen, statement, keep=keep, drop=drop, seed=i)
        rec = {"id": tid, "truth": drop is None, "statement": shown, "keep": keep, "drop": drop,
               "restated": w.text, "problem": w.reason, "raw": w.raw, "seconds": round(time.perf_counter() - started, 2)}
        with out.open("a") as f: f.write(json.dumps(rec) + "\n")
        print(tid, rec["problem"] or "ok", rec["seconds"], flush=True)
