"""How far below the key may a wrong answer read on "Is X a <kind>?" and stay?
(`generation.distractor_kinds.KIND_MARGIN`)

    .venv/bin/python bench/kind_margin.py

Twelve cases written for this study, not taken from the generation bench's items (the check
was built on those): for each, the kind a question names, its key, four real answers of that
kind (one or two of them obscure) and four wrong-kind answers a model offers (a character of
the work, a place, the work itself, a related idea). The standard profile's QA model reads
each; the table counts what each margin would drop.
"""

from __future__ import annotations

import time

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
MARGINS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)


def main() -> None:
    from quizsmith.generation.distractor_kinds import kind_reading
    from quizsmith.providers import provider_for
    from quizsmith.settings import Settings

    settings = Settings(profile="standard", n_threads=2)
    qa_model = str(settings.role("qa"))
    qa = provider_for(qa_model, settings)
    started = time.perf_counter()
    readings = []
    for kind, key, fitting, wrong in CASES:
        check = kind_reading(qa, kind)
        readings.append(
            {
                "kind": kind,
                "key": check.says_yes(key),
                "fitting": {c: check.says_yes(c) for c in fitting},
                "wrong": {c: check.says_yes(c) for c in wrong},
            }
        )
    seconds = time.perf_counter() - started
    n_fit = sum(len(r["fitting"]) for r in readings)
    n_wrong = sum(len(r["wrong"]) for r in readings)
    rows = []
    for margin in MARGINS:

        def dropped(r: dict, group: str, margin: float = margin) -> int:
            bar = min(0.0, r["key"]) - margin
            return sum(value < bar for value in r[group].values())

        rows.append(
            {
                "margin": margin,
                "fitting_dropped": sum(dropped(r, "fitting") for r in readings),
                "wrong_dropped": sum(dropped(r, "wrong") for r in readings),
            }
        )
    m = machine()
    lines = [
        "## The kind check's margin (`bench/kind_margin.py`)",
        "",
        f"Command: `.venv/bin/python bench/kind_margin.py` at revision {git_revision()}, "
        f"{time.strftime('%Y-%m-%d')}; {m['cpu']}, {m['logical_cpus']} logical CPUs. QA model "
        f"{qa_model}; {n_fit + n_wrong + len(readings)} readings in {seconds:.0f} s.",
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
    ]
    data = {"qa_model": qa_model, "readings": readings, "margins": rows}
    write_results("kind_margin", data, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
