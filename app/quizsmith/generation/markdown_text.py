"""The text of a Markdown line as a student would read it: an ATX heading's title, and a line
with its links' URLs and its emphasis marks (`**`, `__`, `*`, backticks) taken off.

A passage file is the teacher's own text, so every pattern here runs in time linear in the
line (issue 48). The patterns these functions replace were not: a heading's
`(.*?)\\s*#*\\s*$` tried every split of a run of spaces (2,000 spaces after "# a": 11 s), a
link's `\\[([^\\]]*)\\]` read from every "[" to the end of a line without "]", and emphasis
`(\\*\\*|__|\\*|`)(?=\\S)(.+?)(?<=\\S)\\1` from every unclosed mark to the end of its line. What
they matched is unchanged, with one difference on purpose: a link's text and URL stop at the
next "[" (`[a [b](u)` keeps "[a " and reads the link "b", as CommonMark does).
"""

from __future__ import annotations

import re

#: The opening of an ATX heading: up to three spaces, one to six "#", then whitespace.
_ATX_OPENING = re.compile(r"\s{0,3}#{1,6}\s")
#: `[text](url)` or `![alt](url)`; neither part runs past the next "[" (see above).
_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^)\[]*\)")
#: Emphasis marks, in the order they are tried at one position.
_EMPHASIS = ("**", "__", "*", "`")
_MARK_START = re.compile(r"[*_`]")


def atx_heading(line: str) -> str | None:
    """The title of an ATX heading line (`## Title ##` -> "Title"), None for another line."""
    opening = _ATX_OPENING.match(line)
    if opening is None:
        return None
    # The closing run of "#" goes with the whitespace around it.
    return line[opening.end() :].strip().rstrip("#").rstrip()


def inline_markdown(line: str) -> str:
    """The line with links replaced by their text and emphasis marks taken off."""
    return "\n".join(_without_emphasis(part) for part in _LINK.sub(r"\1", line).split("\n"))


def _without_emphasis(line: str) -> str:
    """Each `mark text mark` (text starting and ending with a non-space) replaced by its text,
    leftmost first and each with its nearest closing mark, as `re.sub` with the pattern above
    does. A mark with no closing mark left is never looked for again after it."""
    out: list[str] = []
    done = 0
    # Per mark: (where the last search for a closing mark started, what it found or -1).
    closings: dict[str, tuple[int, int]] = {}
    at = _MARK_START.search(line)
    while at is not None:
        i = at.start()
        for mark in _EMPHASIS:
            text_start = i + len(mark)
            if not line.startswith(mark, i) or text_start >= len(line):
                continue
            if line[text_start].isspace():
                continue
            end = _closing(line, mark, text_start + 1, closings)
            if end >= 0:
                out += [line[done:i], line[text_start:end]]
                done = end + len(mark)
                at = _MARK_START.search(line, done)
                break
        else:
            at = _MARK_START.search(line, i + 1)
    out.append(line[done:])
    return "".join(out)


def _closing(line: str, mark: str, start: int, closings: dict[str, tuple[int, int]]) -> int:
    """The first `mark` at or after `start` that follows a non-space, or -1."""
    searched, found = closings.get(mark, (-1, -1))
    if 0 <= searched <= start and (found < 0 or found >= start):
        return found  # the first one after the earlier start is the first after this one
    end = line.find(mark, start)
    while end >= 0 and line[end - 1].isspace():
        end = line.find(mark, end + 1)
    closings[mark] = (start, end)
    return end
