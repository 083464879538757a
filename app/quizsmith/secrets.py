"""API keys: explicit argument > keyring > environment variable.

Keys are never written to SQLite, settings, logs or exception messages. Every key this module
hands out is remembered so the log filter installed by `quizsmith.logs` can mask it should it
ever reach a log record by accident.
"""

from __future__ import annotations

import logging
import os
import re

from quizsmith.errors import AuthError, SecretStoreError

SERVICE = "quizsmith"
_seen: set[str] = set()
log = logging.getLogger(__name__)


def env_var_for(name: str) -> str:
    """`QUIZSMITH_API_KEY_<NAME>`: the environment fallback for keyring entry `name`."""
    return "QUIZSMITH_API_KEY_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def known_secrets() -> frozenset[str]:
    return frozenset(_seen)


def _remember(key: str | None) -> str | None:
    if key:
        _seen.add(key)
    return key


def keyring_usable() -> tuple[bool, str]:
    """Whether a real keyring backend is active, and its name (for messages)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return False, "keyring is not installed"
    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if isinstance(backend, fail.Keyring):
        return False, name
    # Chainer with no real backend behind it behaves like the fail backend.
    if getattr(backend, "backends", None) == []:
        return False, name
    # Low-priority backends (e.g. keyrings.alt's plain-text file) are picked automatically
    # when nothing better exists; keys would then sit unencrypted on disk. Use them only
    # when the user chose one on purpose.
    chosen = bool(os.environ.get("PYTHON_KEYRING_BACKEND"))
    try:
        priority = float(getattr(backend, "priority", 1))
    except (TypeError, ValueError):
        priority = 1.0
    if priority < 1 and not chosen:
        return False, f"{name}, not secure and not chosen with PYTHON_KEYRING_BACKEND"
    return True, name


_NO_KEYRING_FIX = (
    "No usable keyring backend was found ({backend}). Install and unlock a system keyring "
    "(GNOME Keyring or KWallet on Linux, Keychain on macOS, Credential Locker on Windows), or "
    "choose one with PYTHON_KEYRING_BACKEND (e.g. keyrings.alt.file.EncryptedKeyring). Until "
    "then Quizsmith reads the key from the environment variable {env}."
)


def get_api_key(name: str, explicit: str | None = None, extra_env: str | None = None) -> str | None:
    """The key for keyring entry `name`, or None when none is configured anywhere.

    `extra_env` is a conventional variable for the provider (OPENAI_API_KEY, ...) consulted
    after Quizsmith's own variable.
    """
    if explicit:
        return _remember(explicit)
    usable, _ = keyring_usable()
    if usable:
        import keyring
        from keyring.errors import KeyringError

        try:
            stored = keyring.get_password(SERVICE, name)
        except KeyringError as exc:
            log.warning(
                "keyring lookup for %r failed (%s); trying the environment", name, type(exc)
            )
            stored = None
        if stored:
            return _remember(stored)
    for var in (env_var_for(name), extra_env):
        if var and os.environ.get(var):
            return _remember(os.environ[var])
    return None


def require_api_key(name: str, explicit: str | None = None, extra_env: str | None = None) -> str:
    key = get_api_key(name, explicit, extra_env)
    if key:
        return key
    raise AuthError(
        f"No API key for {name!r}.",
        f"Store one with `quizsmith key set {name}` (kept in the system keyring), "
        f"or set the environment variable {env_var_for(name)}.",
    )


def set_api_key(name: str, key: str) -> None:
    if not key.strip():
        raise SecretStoreError("The API key is empty.", "Paste the key again.")
    usable, backend = keyring_usable()
    if not usable:
        raise SecretStoreError(
            "Cannot store the API key.",
            _NO_KEYRING_FIX.format(backend=backend, env=env_var_for(name)),
        )
    import keyring
    from keyring.errors import KeyringError

    try:
        keyring.set_password(SERVICE, name, key.strip())
    except KeyringError as exc:
        raise SecretStoreError(
            f"The keyring refused to store the key ({type(exc).__name__}).",
            "Unlock the system keyring and try again.",
        ) from None
    _remember(key.strip())


def delete_api_key(name: str) -> bool:
    """Remove a stored key; False when there was none."""
    usable, backend = keyring_usable()
    if not usable:
        raise SecretStoreError(
            "Cannot reach the keyring.",
            _NO_KEYRING_FIX.format(backend=backend, env=env_var_for(name)),
        )
    import keyring
    from keyring.errors import PasswordDeleteError

    try:
        keyring.delete_password(SERVICE, name)
    except PasswordDeleteError:
        return False
    return True


def has_stored_key(name: str) -> bool:
    usable, _ = keyring_usable()
    if not usable:
        return False
    import keyring

    return bool(keyring.get_password(SERVICE, name))
