"""Passages several test areas share."""

from __future__ import annotations

#: Six sentences, each with its own fact (dates, places, countries): enough facts that a
#: second run of generation can ask about others than the first.
WAR = (
    "Archduke Franz Ferdinand was shot in Sarajevo on 28 June 1914. "
    "Austria-Hungary declared war on Serbia on 28 July 1914. "
    "Germany declared war on Russia on 1 August 1914. "
    "Britain entered the war on 4 August 1914 after Germany invaded Belgium. "
    "The alliance system turned a local quarrel into a European war. "
    "Millions of soldiers were mobilised within weeks."
)
