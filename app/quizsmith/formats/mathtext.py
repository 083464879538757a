"""TeX math as readable plain text for paper: `\\( x^2 + \\frac{1}{2} \\)` -> `x² + 1/2`.

Moodle and many question banks write math as TeX between `\\( \\)`, `\\[ \\]` or `$$`. Word
cannot show TeX, and a student sheet must not print it raw, so the common constructs are
turned into Unicode (superscripts, subscripts, Greek letters, operators); anything else is
printed without its backslash, which stays readable.
"""

from __future__ import annotations

import re

#: Each delimiter pair, in the order a match at one position is tried.
_DELIMITERS = (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"))
_SUPER = str.maketrans("0123456789+-=()nix", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱˣ")
_SUB = str.maketrans("0123456789+-=()aeioxn", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢₒₓₙ")
_SYMBOLS = {
    "times": "×", "cdot": "·", "div": "÷", "pm": "±", "mp": "∓", "leq": "≤", "le": "≤",
    "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "infty": "∞", "to": "→",
    "rightarrow": "→", "leftarrow": "←", "sum": "∑", "prod": "∏", "int": "∫", "partial": "∂",
    "in": "∈", "notin": "∉", "subset": "⊂", "cup": "∪", "cap": "∩", "circ": "°", "degree": "°",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ",
    "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ",
    "omega": "ω", "Delta": "Δ", "Gamma": "Γ", "Sigma": "Σ", "Omega": "Ω", "Pi": "Π",
    "Theta": "Θ", "Lambda": "Λ", "Phi": "Φ", "ldots": "…", "cdots": "⋯", "quad": " ",
    "left": "", "right": "", ",": " ", ";": " ", "!": "",
}  # fmt: skip
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|(\S))")
_COMMAND = re.compile(r"\\([A-Za-z]+|[,;!])")
_TEXT = re.compile(r"\\(?:text|mathrm|mathbf|mathit|operatorname)\s*\{([^{}]*)\}")


def _script(match: re.Match[str]) -> str:
    body = match.group(2) if match.group(2) is not None else match.group(3)
    table = _SUPER if match.group(1) == "^" else _SUB
    converted = body.translate(table)
    if all(c != o or c in " " for c, o in zip(converted, body, strict=True)):
        return converted
    return ("^" if match.group(1) == "^" else "_") + (f"({body})" if len(body) > 1 else body)


def tex_to_text(tex: str) -> str:
    text = _TEXT.sub(r"\1", tex)
    for _ in range(3):  # nested fractions and roots, innermost first
        text = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", text)
        text = _SQRT.sub(lambda m: f"√{_group(m.group(1))}", text)
    text = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), text)
    text = _SCRIPT.sub(_script, text)
    text = text.replace("{", "").replace("}", "")
    return " ".join(text.split())


def _group(part: str) -> str:
    part = part.strip()
    return part if re.fullmatch(r"[\w.]+", part) else f"({part})"


def readable_math(text: str) -> str:
    """`text` with each delimited TeX formula replaced by its readable form.

    In linear time: the pattern this replaces (the three delimiter pairs as one alternation,
    each with a lazy `(.+?)`) looked for a closing delimiter from every opening one to the
    end of the text, so a text of many openings and no closing took quadratic time (issue
    48). Each pair's next opening and the first closing after it are found once and kept
    until the text read passes them; a pair with no closing left is not looked for again."""
    if all(opening not in text for opening, _ in _DELIMITERS):
        return text
    out: list[str] = []
    done = 0
    # Per delimiter: (its next opening at or after `done`, the first closing after that
    # opening with a formula of at least one character between), or None when none is left.
    found: list[tuple[int, int] | None] = [(-1, -1)] * len(_DELIMITERS)
    while True:
        for i, (opening, closing) in enumerate(_DELIMITERS):
            kept = found[i]
            if kept is None or kept[0] >= done:
                continue
            start = text.find(opening, done)
            if start < 0:
                found[i] = None
                continue
            # A closing found for an earlier opening is still the first after this one.
            end = kept[1] if kept[1] >= start + len(opening) + 1 else -1
            if end < 0:
                end = text.find(closing, start + len(opening) + 1)
            found[i] = (start, end) if end >= 0 else None
        live = [(*pair, i) for i, pair in enumerate(found) if pair is not None]
        if not live:
            break
        start, end, i = min(live)
        opening, closing = _DELIMITERS[i]
        out.append(text[done:start])
        out.append(tex_to_text(text[start + len(opening) : end]))
        done = end + len(closing)
    out.append(text[done:])
    return "".join(out)
