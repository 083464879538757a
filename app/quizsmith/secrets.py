"""API keys: explicit argument > keyring > environment variable.

Keys are never written to SQLite, settings, logs or exception messages. Every key this module
hands out is remembered so the log filter installed by `quizsmith.logs` can mask it should it
ever reach a log record by accident.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

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


def mask_secrets(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every known key (and `extra`) replaced by ***, in any letter case.

    Case-insensitive because servers have echoed a key lower-cased into an answer, and an
    exact-match mask let it through into the bank and the exports.
    """
    keys = sorted({k for k in (*_seen, *extra) if k}, key=len, reverse=True)
    if not keys or not text:
        return text
    pattern = re.compile("|".join(re.escape(k) for k in keys), re.IGNORECASE)
    return pattern.sub("***", text)


def split_userinfo(url: str) -> tuple[str, str]:
    """(url for display, with any user:password@ replaced by ***@; the userinfo, or "").

    A key written into base_url (http://user:KEY@host/v1) is a secret like any other: it is
    remembered for masking, and messages, `quizsmith models` and the bank get the display
    form.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, ""
    if "@" not in parts.netloc:
        return url, ""
    userinfo, _, hostport = parts.netloc.rpartition("@")
    for piece in (userinfo, *userinfo.split(":", 1)):
        if len(piece) >= 4:
            _remember(piece)
    return urlunsplit(parts._replace(netloc=f"***@{hostport}")), userinfo


def display_url(url: str) -> str:
    return split_userinfo(url)[0]


#: Conventional environment variables of hosted APIs, and the only host each one is sent to.
PROVIDER_ENV_KEYS = {
    "OPENAI_API_KEY": "api.openai.com",
    "ANTHROPIC_API_KEY": "api.anthropic.com",
}


def env_key_for_endpoint(var: str, base_url: str, key_name: str = "") -> str | None:
    """`var` (OPENAI_API_KEY ...) when it may be sent to `base_url`, else None.

    The variable belongs to one service: sending it to any server configured as an endpoint
    leaked it to a local test server. It goes only to its own host, or to an endpoint whose
    key_name names the variable itself (a deliberate choice).
    """
    if key_name and key_name == var:
        return var
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return None
    return var if host and host == PROVIDER_ENV_KEYS.get(var) else None


def keyring_usable() -> tuple[bool, str]:
    """Whether a real keyring backend is active, and its name (for messages)."""
    try:
        import keyring
        from keyring.backends import fail, null
    except ImportError:
        return False, "keyring is not installed"
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a misspelt PYTHON_KEYRING_BACKEND raises whatever import does
        wanted = os.environ.get("PYTHON_KEYRING_BACKEND", "")
        return False, f"PYTHON_KEYRING_BACKEND={wanted!r} cannot be loaded ({type(exc).__name__})"
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    # The null backend accepts a key and keeps nothing: "Stored the key" would be untrue.
    if isinstance(backend, fail.Keyring | null.Keyring):
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
    except Exception as exc:
        # keyrings.alt's EncryptedKeyring raises RuntimeError here without pycryptodome.
        return False, f"{name}, which cannot run here ({exc})"
    if priority < 1 and not chosen:
        return False, f"{name}, not secure and not chosen with PYTHON_KEYRING_BACKEND"
    return True, name


def no_keyring_fix(backend: str, env: str) -> str:
    """Advice that works on this installation: only backends that can load here are named."""
    choice = ""
    if importlib.util.find_spec("keyrings") and importlib.util.find_spec("keyrings.alt"):
        if importlib.util.find_spec("Cryptodome") or importlib.util.find_spec("Crypto"):
            choice = (
                " or choose an encrypted file with "
                "PYTHON_KEYRING_BACKEND=keyrings.alt.file.EncryptedKeyring,"
            )
        else:
            choice = (
                " or, on a computer only you use, choose a plain-text file with "
                "PYTHON_KEYRING_BACKEND=keyrings.alt.file.PlaintextKeyring (the key is stored "
                "unencrypted in your home folder),"
            )
    return (
        f"No usable keyring backend was found ({backend}). Install and unlock a system "
        "keyring (GNOME Keyring or KWallet on Linux, Keychain on macOS, Credential Locker on "
        f"Windows),{choice} or set the environment variable {env}, which Quizsmith reads "
        "when no keyring holds the key."
    )


def key_problem(key: str) -> str | None:
    """What makes `key` unusable in an HTTP header, in words that never quote it, else None.

    A key is printable ASCII without whitespace: "é" in a key ended `score` in a crash
    (UnicodeEncodeError while the header was built) and a carriage return was stored as is
    (issue 48). Only where the bad character is, never what it is, is said.
    """
    for position, char in enumerate(key, 1):
        if char.isspace():
            what = "a line break" if char in "\r\n" else "a space or tab"
        elif not ("!" <= char <= "~"):
            what = "a character that is not printable ASCII"
        else:
            continue
        return f"it holds {what} (character {position} of {len(key)})"
    return None


def get_api_key(name: str, explicit: str | None = None, extra_env: str | None = None) -> str | None:
    """The key for keyring entry `name`, or None when none is configured anywhere.

    `extra_env` is a conventional variable for the provider (OPENAI_API_KEY, ...) consulted
    after Quizsmith's own variable.
    """
    return _lookup(name, explicit, extra_env)[0]


def _lookup(name: str, explicit: str | None, extra_env: str | None) -> tuple[str | None, str]:
    """(the key or None, where it was found, in words)."""
    if explicit:
        return _remember(explicit), "given"
    usable, _ = keyring_usable()
    if usable:
        import keyring

        try:
            stored = keyring.get_password(SERVICE, name)
        except Exception as exc:  # a locked or broken backend: the environment may still help
            log.warning(
                "keyring lookup for %r failed (%s); trying the environment", name, type(exc)
            )
            stored = None
        if stored:
            return _remember(stored), f"stored in the keyring as {name!r}"
    for var in (env_var_for(name), extra_env):
        if var and os.environ.get(var):
            return _remember(os.environ[var]), f"in the environment variable {var}"
    return None, ""


def require_api_key(name: str, explicit: str | None = None, extra_env: str | None = None) -> str:
    """The key for `name`, ready for an HTTP header: surrounding whitespace (a line end
    pasted with it) is taken off, and a key that still cannot be sent is an AuthError."""
    key, where = _lookup(name, explicit, extra_env)
    if key and key.strip():
        key = key.strip()
        problem = key_problem(key)
        if problem is None:
            return _remember(key) or key
        where_fix = (
            f"set {where.removeprefix('in the environment variable ')} to the key alone"
            if where.startswith("in the environment")
            else f"store it again with `quizsmith key set {name}`"
        )
        raise AuthError(
            f"The API key {where} cannot be sent: {problem}. An API key is printable ASCII "
            "without spaces.",
            f"Copy the key again from the service's web page and {where_fix}.",
        )
    raise AuthError(
        f"No API key for {name!r}.",
        f"Store one with `quizsmith key set {name}` (kept in the system keyring), "
        f"or set the environment variable {env_var_for(name)}.",
    )


def set_api_key(name: str, key: str) -> None:
    """Store `key` (surrounding whitespace, such as the line end of piped input, taken off)
    after checking that it can be sent in an HTTP header; the message never quotes it."""
    if not key.strip():
        raise SecretStoreError("The API key is empty.", "Paste the key again.")
    problem = key_problem(key.strip())
    if problem:
        raise SecretStoreError(
            f"This is not an API key: {problem}. An API key is printable ASCII without "
            "spaces; nothing was stored.",
            "Copy the key again from the service's web page (only the key) and paste it.",
        )
    usable, backend = keyring_usable()
    if not usable:
        raise SecretStoreError(
            "Cannot store the API key.",
            no_keyring_fix(backend, env_var_for(name)),
        )
    import keyring

    try:
        keyring.set_password(SERVICE, name, key.strip())
        kept = keyring.get_password(SERVICE, name)
    except Exception as exc:  # backends raise KeyringError, RuntimeError, OSError ...
        raise SecretStoreError(
            f"The keyring ({backend}) refused to store the key ({type(exc).__name__}).",
            "Unlock the system keyring and try again. "
            + no_keyring_fix(backend, env_var_for(name)),
        ) from None
    if kept != key.strip():
        raise SecretStoreError(
            f"The keyring ({backend}) did not keep the key: reading it back gave "
            f"{'nothing' if not kept else 'a different value'}.",
            no_keyring_fix(backend, env_var_for(name)),
        )
    _remember(key.strip())


def delete_api_key(name: str) -> bool:
    """Remove a stored key; False when there was none."""
    usable, backend = keyring_usable()
    if not usable:
        raise SecretStoreError(
            "Cannot reach the keyring.",
            no_keyring_fix(backend, env_var_for(name)),
        )
    import keyring
    from keyring.errors import PasswordDeleteError

    try:
        keyring.delete_password(SERVICE, name)
    except PasswordDeleteError:
        return False
    except Exception as exc:
        raise SecretStoreError(
            f"The keyring ({backend}) refused to remove the key ({type(exc).__name__}).",
            "Unlock the system keyring and try again.",
        ) from None
    return True


def has_stored_key(name: str) -> bool:
    usable, _ = keyring_usable()
    if not usable:
        return False
    import keyring

    try:
        return bool(keyring.get_password(SERVICE, name))
    except Exception:
        return False
