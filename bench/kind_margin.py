"""How far below the key may a wrong answer read on "Is X a <kind>?" and stay?
(`generation.distractor_kinds.KIND_MARGIN`, and `KIND_FLOOR` for keys the model doubts)

    .venv/bin/python bench/kind_margin.py

Twelve cases written for this study, not taken from the generation bench's items (the check
was built on those): for each, the kind a question names, its key, four real answers of that
kind (one or two of them obscure) and four wrong-kind answers a model offers (a character of
the work, a place, the work itself, a related idea). The standard profile's QA model reads
each; the table counts what each margin would drop.

Twelve more cases (written 2026-11-27, also not from the bench) with keys the model may not
know (a regiment, a dynasty, a script, a militia ...): where it answers No for the key itself,
the bar min(0, key) - margin falls so low that wrong kinds pass ("The Demon" as a group, seen
on the generation bench). The second table counts what a floor under the bar would drop,
at the chosen margin, on the cases whose key reads below 0.
"""

from __future__ import annotations

import time
from typing import Any

from common import git_revision, machine, write_results

#: (kind, key, real answers of that kind, answers of another kind)
CASES = [
    ("composer", "Wolfgang Amadeus Mozart",
     ["Joseph Haydn", "Antonio Salieri", "Christoph Willibald Gluck",
      "Carl Ditters von Dittersdorf"],
     ["Papageno", "Salzburg", "The Marriage of Figaro", "Emperor Joseph II"]),
    ("planet", "Jupiter", ["Saturn", "Neptune", "Uranus"],
     ["the Sun", "Ganymede", "Halley's Comet", "the Great Red Spot"]),
    ("gas", "carbon dioxide", ["oxygen", "nitrogen", "methane", "argon"],
     ["glucose", "chlorophyll", "photosynthesis", "water vapour droplets"]),
    ("river", "Danube", ["Rhine", "Elbe", "Vistula", "Drava"],
     ["Vienna", "the Alps", "Black Forest", "Budapest"]),
    ("painter", "Claude Monet",
     ["Pierre-Auguste Renoir", "Edgar Degas", "Alfred Sisley", "Berthe Morisot"],
     ["Water Lilies", "Giverny", "Impressionism", "the Salon"]),
    ("element", "sodium", ["potassium", "lithium", "caesium", "rubidium"],
     ["salt", "chlorine gas molecule", "the periodic table", "electrolysis"]),
    ("country", "Peru", ["Bolivia", "Ecuador", "Chile", "Paraguay"],
     ["Lima", "the Andes", "Machu Picchu", "the Inca"]),
    ("organ", "the liver", ["the kidney", "the pancreas", "the spleen", "the gallbladder"],
     ["bile", "insulin", "the bloodstream", "digestion"]),
    ("treaty", "Treaty of Versailles",
     ["Treaty of Trianon", "Treaty of Saint-Germain", "Treaty of Brest-Litovsk",
      "Treaty of Sèvres"],
     ["League of Nations", "Woodrow Wilson", "Paris Peace Conference", "reparations"]),
    ("person", "Ada Lovelace",
     ["Charles Babbage", "Mary Somerville", "Augustus De Morgan", "Lord Byron"],
     ["the Analytical Engine", "London", "Bernoulli numbers", "the Royal Society"]),
    ("instrument", "the oboe", ["the clarinet", "the bassoon", "the cor anglais", "the flute"],
     ["the orchestra", "a reed", "Vivaldi", "the woodwind section"]),
    ("city", "Kyoto", ["Nara", "Osaka", "Kamakura", "Kanazawa"],
     ["Honshu", "the Heian period", "Kinkaku-ji", "Japan"]),
]  # fmt: skip
#: Written for the floor: obscure keys, some of which the model doubts.
DOUBTED_CASES = [
    ("regiment", "Black Watch",
     ["Coldstream Guards", "Royal Scots Greys", "Gordon Highlanders", "Cameronians"],
     ["Edinburgh Castle", "The Highland Fling", "bagpipes", "The Phantom"]),
    ("dynasty", "Jin", ["Song", "Tang", "Liao", "Western Xia"],
     ["Beijing", "Genghis Khan", "the Great Wall", "silk"]),
    ("tribe", "Kikuyu", ["Maasai", "Luo", "Kalenjin", "Kamba"],
     ["Nairobi", "Mount Kenya", "Swahili", "coffee"]),
    ("ship", "Mary Rose", ["Golden Hind", "HMS Victory", "Cutty Sark", "Vasa"],
     ["Henry VIII", "Portsmouth", "the Solent", "archery"]),
    ("alloy", "pewter", ["bronze", "brass", "solder", "electrum"],
     ["tin", "copper", "tankard", "smelting"]),
    ("festival", "Onam", ["Diwali", "Holi", "Navaratri", "Pongal"],
     ["Kerala", "King Mahabali", "boat races", "rice"]),
    ("enzyme", "amylase", ["lipase", "pepsin", "trypsin", "lactase"],
     ["starch", "saliva", "glucose", "the pancreas"]),
    ("script", "Linear B", ["Linear A", "cuneiform", "hieroglyphs", "Ogham"],
     ["Knossos", "Crete", "Arthur Evans", "clay tablet"]),
    ("movement", "Chartism", ["Luddism", "suffragism", "abolitionism", "Owenism"],
     ["the People's Charter", "Feargus O'Connor", "petition", "Parliament"]),
    ("order", "Knights Hospitaller",
     ["Knights Templar", "Teutonic Knights", "Order of Santiago", "Order of Calatrava"],
     ["Malta", "Jerusalem", "the Crusades", "Saladin"]),
    ("militia", "Minutemen",
     ["Green Mountain Boys", "Overmountain Men", "Culpeper Minutemen", "Sons of Liberty"],
     ["Lexington", "Paul Revere", "muskets", "The Redcoat Ghost"]),
    ("unit", "Varangian Guard",
     ["Immortals", "Praetorian Guard", "Janissaries", "Scholae Palatinae"],
     ["Constantinople", "Basil II", "axes", "The Northern Wolf"]),
]  # fmt: skip
MARGINS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
FLOORS = (None, -2.0, -1.5, -1.0, -0.75)


def read(qa: Any, case: tuple[str, str, list[str], list[str]]) -> dict[str, Any]:
    from quizsmith.generation.distractor_kinds import kind_reading

    kind, key, fitting, wrong = case
    check = kind_reading(qa, kind)
    return {
        "kind": kind,
        "key": check.says_yes(key),
        "fitting": {c: check.says_yes(c) for c in fitting},
        "wrong": {c: check.says_yes(c) for c in wrong},
    }


def dropped(r: dict[str, Any], group: str, margin: float, floor: float | None = None) -> int:
    """How many of a case's answers in `group` read below the bar."""
    bar = min(0.0, r["key"]) - margin
    if floor is not None:
        bar = max(bar, floor)
    return sum(value < bar for value in r[group].values())


def main() -> None:
    from quizsmith.generation.distractor_kinds import KIND_MARGIN
    from quizsmith.providers import provider_for
    from quizsmith.settings import Settings

    settings = Settings(profile="standard", n_threads=2)
    qa_model = str(settings.role("qa"))
    qa = provider_for(qa_model, settings)
    started = time.perf_counter()
    readings = [read(qa, case) for case in CASES]
    doubted_all = [read(qa, case) for case in DOUBTED_CASES]
    seconds = time.perf_counter() - started
    readings_count = sum(1 + len(r["fitting"]) + len(r["wrong"]) for r in readings + doubted_all)
    doubted = [r for r in doubted_all if r["key"] < 0]
    n_fit = sum(len(r["fitting"]) for r in readings)
    n_wrong = sum(len(r["wrong"]) for r in readings)
    rows = []
    for margin in MARGINS:
        rows.append(
            {
                "margin": margin,
                "fitting_dropped": sum(dropped(r, "fitting", margin) for r in readings),
                "wrong_dropped": sum(dropped(r, "wrong", margin) for r in readings),
            }
        )
    floor_rows = [
        {
            "floor": floor,
            "fitting_dropped": sum(dropped(r, "fitting", KIND_MARGIN, floor) for r in doubted),
            "wrong_dropped": sum(dropped(r, "wrong", KIND_MARGIN, floor) for r in doubted),
            "all_fitting_dropped": sum(
                dropped(r, "fitting", KIND_MARGIN, floor) for r in readings + doubted_all
            ),
            "all_wrong_dropped": sum(
                dropped(r, "wrong", KIND_MARGIN, floor) for r in readings + doubted_all
            ),
        }
        for floor in FLOORS
    ]
    d_fit = sum(len(r["fitting"]) for r in doubted)
    d_wrong = sum(len(r["wrong"]) for r in doubted)
    all_fit = n_fit + sum(len(r["fitting"]) for r in doubted_all)
    all_wrong = n_wrong + sum(len(r["wrong"]) for r in doubted_all)
    m = machine()
    lines = [
        "## The kind check's margin (`bench/kind_margin.py`)",
        "",
        f"Command: `.venv/bin/python bench/kind_margin.py` at revision {git_revision()}, "
        f"{time.strftime('%Y-%m-%d')}; {m['cpu']}, {m['logical_cpus']} logical CPUs. QA model "
        f"{qa_model}; {readings_count} readings in {seconds:.0f} s.",
        "",
        f"{len(readings)} hand-written cases (not the generation bench's items): {n_fit} real "
        f"answers of the asked kind, {n_wrong} answers of another kind. A candidate is dropped "
        "when it reads below min(0, the key's reading) - margin.",
        "",
        "| margin | real answers dropped | wrong-kind answers dropped |",
        "| ---: | ---: | ---: |",
        *(
            f"| {r['margin']} | {r['fitting_dropped']} of {n_fit} | "
            f"{r['wrong_dropped']} of {n_wrong} |"
            for r in rows
        ),
        "",
        f"Keys the model doubts: of {len(DOUBTED_CASES)} more hand-written cases, the key "
        f"read below 0 in {len(doubted)} ({', '.join(r['kind'] for r in doubted)}). A floor "
        f"keeps the bar, max(min(0, key) - {KIND_MARGIN}, floor), from falling below it; "
        "it changes nothing where the key reads 0 or more. Counted on those cases, and on all "
        f"{len(readings) + len(doubted_all)} cases:",
        "",
        "| floor | real answers dropped | wrong-kind answers dropped | all cases: real | "
        "all cases: wrong-kind |",
        "| ---: | ---: | ---: | ---: | ---: |",
        *(
            f"| {'none' if r['floor'] is None else r['floor']} | {r['fitting_dropped']} of "
            f"{d_fit} | {r['wrong_dropped']} of {d_wrong} | {r['all_fitting_dropped']} of "
            f"{all_fit} | {r['all_wrong_dropped']} of {all_wrong} |"
            for r in floor_rows
        ),
        "",
    ]
    data = {
        "qa_model": qa_model,
        "readings": readings,
        "doubted_readings": doubted_all,
        "margins": rows,
        "floors": floor_rows,
    }
    write_results("kind_margin", data, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
