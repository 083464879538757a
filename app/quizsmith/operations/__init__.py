"""Operations: what the teacher does to the bank, once, for every front end.

The command line and the desktop app used to carry their own copies of the same features
(saving a score with its flags, recording a decision, checking a handout, swapping in an
alternative, generating into the bank). Each now lives here, Qt-free, and both call it.
An operation that writes returns an `OpChanges` saying what it changed, so the caller
refreshes only the views that show it (the idea of Anki's `CollectionOp`/`OpChanges`).
Long operations are jobs (`quizsmith.jobs`): generators that take a `CancelToken` and
yield `Progress`.

Modules import their heavy dependencies inside functions, as the CLI does, so importing
an operation costs nothing at start-up.
"""

from __future__ import annotations

from quizsmith.operations.changes import OpChanges

__all__ = ["OpChanges"]
