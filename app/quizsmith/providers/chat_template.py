"""A GGUF file's chat template, rendered within a time and memory budget (issue 48).

A GGUF file carries its chat template as Jinja2 source, and any file a teacher drops into a
models folder is loaded. llama-cpp-python renders it in Jinja2's immutable sandbox, which
stops a template from reaching Python but not from spending without limit: before this,
`{{ raise_exception('x') }}` ended a whole `score` run with status 1, two nested
`range(100000)` loops hung it, and `{% set s='A'*800000000 %}{% set t=s~s %}` took 4.18 GB
while the model loaded (Jinja2 folds constant expressions while it compiles, so the string
was built before anything was rendered).

Here a template runs in `GuardedEnvironment`, the same sandbox with its costs counted:

- compiled without constant folding, and only up to `MAX_TEMPLATE_CHARS` of source;
- every string, list or number an operator (`*`, `+`, `**`, `%`, `~`), a call or a filter
  would make is sized before it is made: no single one above `MAX_TEXT` characters (or
  items), and no more than `MAX_MADE` characters made in one render;
- every loop step, call, attribute and operator counts as a step: at most `MAX_STEPS`
  per render, and the render stops after `TIME_BUDGET_S` seconds;
- failures (a `raise_exception`, an undefined call, a syntax error, a recursion) are
  `ChatTemplateError`s, never other exceptions.

Where such a template is used, and what takes its place when it fails: chat_formats.py.

Why this module is long: the budget is one mechanism with many doors. Each way a template
can spend (operators, calls, attribute look-ups, filters, loops, `~`, joined output) is a
hook on the environment that sizes what it would make with the estimates above it and
charges the same running render's budget; apart, the estimates would be read away from the
hooks whose arguments they size.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import wraps
from typing import Any

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from quizsmith.errors import ProviderError

log = logging.getLogger(__name__)

#: Real chat templates are a few kilobytes (the largest known, with tool calling, ~20 KB).
MAX_TEMPLATE_CHARS = 256 * 1024
#: One string (characters) or list (items) a template may make: a prompt of a 1M-token
#: context is about 4M characters.
MAX_TEXT = 4 * 2**20
#: Characters made in one render, output included (at most 4 bytes each in memory).
MAX_MADE = 32 * 2**20
#: Loop steps, calls, attribute look-ups and operators in one render; rendering a
#: conversation of 200 turns takes a few thousand.
MAX_STEPS = 1_000_000
TIME_BUDGET_S = 2.0
#: Bits of an integer a template may make (`2 ** 10 ** 9` would take minutes in one step).
MAX_INT_BITS = 1 << 16

_FIX = (
    "Choose another model for this role (quizsmith models lists them), or a GGUF file whose "
    "chat template works."
)

#: A digit run this long in a format string asks for a width or precision of millions.
_WIDE_FORMAT = re.compile(r"\d{7,}")


class ChatTemplateError(ProviderError):
    """A chat template failed, or would have spent more than its budget. Where the model's
    family has a built-in format this never reaches a teacher: that format is used instead."""

    def __init__(self, message: str, fix: str = _FIX) -> None:
        super().__init__(message, fix)


class _Budget:
    """What one render may still spend."""

    def __init__(self) -> None:
        self.deadline = time.monotonic() + TIME_BUDGET_S
        self.steps = MAX_STEPS
        self.made = MAX_MADE

    def step(self, n: int = 1) -> None:
        self.steps -= n
        if self.steps < 0:
            raise ChatTemplateError(f"the template took more than {MAX_STEPS:,} steps")
        if time.monotonic() > self.deadline:
            raise ChatTemplateError(f"the template ran for more than {TIME_BUDGET_S:g} s")

    def make(self, chars: int) -> None:
        if chars > MAX_TEXT:
            raise ChatTemplateError(
                f"the template builds a text or list of {chars:,} characters or items "
                f"(at most {MAX_TEXT:,})",
                "",
            )
        self.made -= chars
        if self.made < 0:
            raise ChatTemplateError(
                f"the template makes more than {MAX_MADE:,} characters in one rendering"
            )


_state = threading.local()


def _budget() -> _Budget | None:
    """The running render's budget; None while a template compiles (no render runs)."""
    return getattr(_state, "budget", None)


def _step() -> None:
    budget = _budget()
    if budget is not None:
        budget.step()


def _make(chars: int) -> None:
    budget = _budget()
    if budget is not None:
        budget.make(chars)
    elif chars > MAX_TEXT:
        _Budget().make(chars)  # raises: the same limit when no render runs


def size_of(value: Any, limit: int = MAX_TEXT) -> int:
    """About how many characters `str(value)` would have (strings in lists, tuples and dicts
    counted through), without making it; stops counting once past `limit`."""
    total = 0
    seen = 0
    stack = [value]
    while stack:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, list | tuple | set | frozenset):
            total += 2 + 2 * len(item)
            if total <= limit:
                stack.extend(item)
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            if total <= limit:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, int) and not isinstance(item, bool):
            total += item.bit_length() // 3 + 1
        else:
            total += 8
        if total > limit or seen > limit:
            return max(total, seen)
    return total


def _check_int(value: Any) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_TEXT:
        raise ChatTemplateError(
            f"the template passes the number {value:,} where a size is read (at most {MAX_TEXT:,})"
        )


def _check_format(fmt: Any) -> None:
    if isinstance(fmt, str) and ("%" in fmt or "{" in fmt) and _WIDE_FORMAT.search(fmt):
        raise ChatTemplateError("the template formats text with a width of millions")


def _check_str_format(obj: Any, attribute: Any) -> None:
    # The sandbox hands out its own wrapper for str.format, so `call` never sees the
    # method: the format string is read where the method is looked up.
    if isinstance(obj, str) and attribute in ("format", "format_map"):
        _check_format(obj)


def _estimate_binop(operator: str, left: Any, right: Any) -> int:
    """Characters (or items) the operator's result would hold; 0 when it makes no text."""
    sequence = (str, list, tuple)
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, sequence) and isinstance(times, int):
                return len(seq) * max(times, 0)
        both_ints = isinstance(left, int) and isinstance(right, int)
        if both_ints and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise ChatTemplateError("the template multiplies numbers too large")
        return 0
    if operator == "+":
        if isinstance(left, sequence) and isinstance(right, sequence):
            return len(left) + len(right)
        return 0
    if operator == "**":
        both_ints = isinstance(left, int) and isinstance(right, int)
        if (
            both_ints
            and abs(left) > 1
            and right > 0
            and right * abs(left).bit_length() > MAX_INT_BITS
        ):
            raise ChatTemplateError("the template raises a number to a huge power")
        return 0
    if operator == "%" and isinstance(left, str):
        _check_format(left)
        return len(left) + size_of(right)
    return 0


def _estimate_str_method(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """Characters a str method's result would hold, for the methods that can grow text."""
    text = getattr(method, "__self__", None)
    if not isinstance(text, str):
        return 0
    name = getattr(method, "__name__", "")
    if name in ("format", "format_map"):
        _check_format(text)
        return len(text) + size_of((args, kwargs))
    if name == "join" and args:
        items = args[0]
        if isinstance(items, list | tuple):
            return size_of(items) + len(text) * len(items)
        return 0
    if name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = text.count(old) if old else len(text) + 1
        return len(text) + count * max(0, len(new) - len(old))
    if name == "expandtabs":
        width = args[0] if args else kwargs.get("tabsize", 8)
        return len(text) + text.count("\t") * (width if isinstance(width, int) else 8)
    return 0


def _estimate_filter(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """Characters the filters that can grow text would make, from their arguments."""
    value = args[0] if args else ""
    rest = args[1:]
    text = value if isinstance(value, str) else ""
    if name == "replace" and len(rest) >= 2:
        old, new = str(rest[0]), str(rest[1])
        count = text.count(old) if old else len(text) + 1
        return len(text) + count * max(0, len(new) - len(old))
    if name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        width_chars = width if isinstance(width, int) else len(str(width))
        return len(text) + (text.count("\n") + 1) * width_chars
    if name == "wordwrap":
        wrap = rest[2] if len(rest) > 2 else kwargs.get("wrapstring") or "\n"
        return len(text) * (1 + len(str(wrap)))
    if name == "format":
        _check_format(text)
        return len(text) + size_of((rest, kwargs))
    if name == "tojson":
        indent = rest[1] if len(rest) > 1 else kwargs.get("indent")
        if isinstance(indent, int) and indent > 64:
            raise ChatTemplateError("the template asks for JSON indented by more than 64")
    return size_of((value, rest, kwargs))


def _guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    # Filters are called directly by the compiled template, not through the sandbox's
    # `call`, so each is wrapped. `@wraps` keeps Jinja2's pass_context/pass_environment mark.
    passes_first = getattr(func, "jinja_pass_arg", None) is not None

    @wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _step()
        own = args[1:] if passes_first else args
        if name == "join" and own and not isinstance(own[0], list | tuple | str):
            own = (_materialise(own[0]), *own[1:])  # a generator: counted before it is joined
            args = (*args[:1], *own) if passes_first else own
        for value in (*own[1:], *kwargs.values()):
            _check_int(value)
        _make(_estimate_filter(name, own, kwargs))
        result = func(*args, **kwargs)
        if isinstance(result, str | list | tuple):
            _make(len(result))
        return result

    return guarded


def _materialise(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        out.append(item)
        if len(out) > MAX_TEXT:
            _make(len(out))
    return out


class _Counted:
    """A loop's iterable, counting a step per item (nested loops over `range(100000)` ran
    10^10 steps that nothing saw). Sized when the iterable is, for `loop.length`."""

    def __init__(self, items: Any) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        for item in self._items:
            _step()
            yield item


class _Instrument(NodeTransformer):
    """Route loops and `~` through the environment, where they are counted."""

    def visit_For(self, node: nodes.For) -> nodes.Node:  # noqa: N802 - Jinja2's visitor names
        self.generic_visit(node)
        assert isinstance(node.iter, nodes.Expr)
        node.iter = _env_call("counted", [node.iter], node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:  # noqa: N802
        self.generic_visit(node)
        return _env_call("join_text", [nodes.List(node.nodes)], node.lineno)


def _env_call(name: str, args: list[nodes.Expr], lineno: int) -> nodes.Call:
    call = nodes.Call(nodes.EnvironmentAttribute(name), args, [], None, None)
    call.set_lineno(lineno)
    return call


class _IgnoreGenerationTags(jinja2.ext.Extension):
    """Hugging Face's `{% generation %}` tag, passed through (as llama-cpp-python does)."""

    tags = {"generation"}  # noqa: RUF012 - Jinja2 reads this class attribute

    def parse(self, parser: Any) -> Any:
        parser.stream.skip(1)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


def _tojson(
    x: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    # As llama-cpp-python's formatter (Transformers' chat-template JSON).
    return json.dumps(
        x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


class GuardedEnvironment(ImmutableSandboxedEnvironment):
    """The immutable sandbox llama-cpp-python renders chat templates in, with the costs of
    a render counted (module docstring)."""

    intercepted_binops = frozenset({"*", "+", "**", "%", "//"})

    def __init__(self) -> None:
        super().__init__(
            loader=jinja2.BaseLoader(),
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=[_IgnoreGenerationTags, jinja2.ext.loopcontrols],
            # No folding while compiling: `'A' * 800000000` was built at compile time.
            optimized=False,
            finalize=self._finalize,
        )
        self.filters["tojson"] = _tojson
        self.filters = {name: _guard_filter(name, f) for name, f in self.filters.items()}
        self._own = (self.counted, self.join_text)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        if len(source) > MAX_TEMPLATE_CHARS:
            raise ChatTemplateError(
                f"the template is {len(source):,} characters long (at most {MAX_TEMPLATE_CHARS:,})"
            )
        tree = super()._parse(source, name, filename)
        instrumented = _Instrument().visit(tree)
        assert isinstance(instrumented, nodes.Template)
        return instrumented

    # -- what the instrumented template calls --------------------------------------------------
    def counted(self, items: Any) -> _Counted:
        return _Counted(items)

    def join_text(self, items: list[Any]) -> str:
        _make(sum(size_of(item) for item in items))
        return "".join(str(item) for item in items)

    def concat(self, pieces: Any) -> str:
        """Joins a macro's or a block's output (Jinja2 calls `environment.concat`)."""
        pieces = list(pieces)
        _make(sum(len(p) for p in pieces))
        return "".join(pieces)

    @staticmethod
    def _finalize(value: Any) -> Any:
        # Each `{{ ... }}` is made a string after this: a list of big strings would be.
        _step()
        _make(size_of(value))
        return value

    # -- the sandbox's hooks -----------------------------------------------------------------
    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _step()
        _make(_estimate_binop(operator, left, right))
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        _step()
        _check_str_format(obj, attribute)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _step()
        _check_str_format(obj, argument)
        value = super().getitem(obj, argument)
        if isinstance(argument, slice) and isinstance(value, str | list | tuple):
            _make(len(value))
        return value

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _step()
        if __obj in __self._own:
            return __obj(*args)  # drops Jinja2's _loop_vars/_block_vars, as Context.call does
        for value in (*args, *kwargs.values()):
            _check_int(value)
        _make(_estimate_str_method(__obj, args, kwargs))
        result = super().call(__context, __obj, *args, **kwargs)
        if isinstance(result, str | list | tuple):
            _make(len(result))
        return result


def compile_template(source: str) -> jinja2.Template:
    """The template compiled in a GuardedEnvironment; ChatTemplateError if it cannot be."""
    try:
        return GuardedEnvironment().from_string(source)
    except ChatTemplateError:
        raise
    except Exception as exc:  # any failure of a file's template is its own
        raise ChatTemplateError(f"the template does not compile ({_why(exc)})") from exc


def render(template: jinja2.Template, **context: Any) -> str:
    """Render within the budget; every failure is a ChatTemplateError."""
    budget = _Budget()
    previous = _budget()
    _state.budget = budget
    pieces: list[str] = []
    try:
        for piece in template.generate(**context):
            budget.step()
            budget.make(len(piece))
            pieces.append(piece)
        return "".join(pieces)
    except ChatTemplateError:
        raise
    except Exception as exc:  # raise_exception, undefined names, recursion ...
        raise ChatTemplateError(f"the template failed: {_why(exc)}") from exc
    finally:
        _state.budget = previous


def _why(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _raise_exception(message: str) -> None:
    raise ChatTemplateError(f"the template raised an error: {str(message)[:200]}")


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(str(fmt)[:100])


def render_messages(
    template: jinja2.Template,
    messages: list[dict[str, Any]],
    *,
    eos_token: str = "",
    bos_token: str = "",
    add_generation_prompt: bool = True,
    **extra: Any,
) -> str:
    """The prompt for `messages`, with the variables llama-cpp-python gives a template."""
    context: dict[str, Any] = {
        "functions": None,
        "function_call": None,
        "tools": None,
        "tool_choice": None,
        **extra,
        "messages": messages,
        "eos_token": eos_token,
        "bos_token": bos_token,
        "raise_exception": _raise_exception,
        "add_generation_prompt": add_generation_prompt,
        "strftime_now": _strftime_now,
    }
    return render(template, **context)
