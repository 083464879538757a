"""TeX math as readable plain text for paper: `\\( x^2 + \\frac{1}{2} \\)` -> `x² + 1/2`.

Moodle and many question banks write math as TeX between `\\( \\)`, `\\[ \\]` or `$$`. Word
cannot show TeX, and a student sheet must not print it raw, so the common constructs are
turned into Unicode (superscripts, subscripts, Greek letters, operators); anything else is
printed without its backslash, which stays readable.
"""

from __future__ import annotations

import re

_DELIMITED = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]|\$\$(.+?)\$\$", re.DOTALL)
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
    """`text` with each delimited TeX formula replaced by its readable form."""
    if "\\(" not in text and "\\[" not in text and "$$" not in text:
        return text
    return _DELIMITED.sub(lambda m: tex_to_text(next(g for g in m.groups() if g is not None)), text)
