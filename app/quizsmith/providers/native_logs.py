"""Keep the model libraries' own chatter off the terminal: it goes to Quizsmith's log file.

llama.cpp logs through a C callback. llama-cpp-python's callback prints to stderr whatever
its level table lets through, and that table predates ggml's current level numbers, so with
`verbose=False` llama.cpp's warnings still reached the screen ("llama_kv_cache_iswa: using
full-size SWA cache ..."). transformers draws a "Loading weights" progress bar for every
model it loads. A teacher running `quizsmith` sees neither; a developer finds both in the
log (llama.cpp's lines at DEBUG, its errors at WARNING).
"""

from __future__ import annotations

import ctypes
import logging
import threading
from typing import Any

log = logging.getLogger("quizsmith.native.llama_cpp")

#: ggml_log_level's ERROR (ggml.h: NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5).
_GGML_ERROR = 4

_lock = threading.Lock()
#: ctypes calls the callback for the life of the process, so it must never be collected.
_callback: Any = None
_transformers_quiet = False


def route_llama_cpp_logs() -> None:
    """Send llama.cpp's log lines to the log file instead of stderr (once per process)."""
    global _callback
    with _lock:
        if _callback is not None:
            return
        import llama_cpp

        @llama_cpp.llama_log_callback
        def to_log(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            message = text.decode("utf-8", "replace").rstrip()
            if message:
                log.log(logging.WARNING if level == _GGML_ERROR else logging.DEBUG, "%s", message)

        llama_cpp.llama_log_set(to_log, ctypes.c_void_p(0))
        _callback = to_log


def quiet_transformers() -> None:
    """No progress bars and only errors from transformers (and the hub client under it)."""
    global _transformers_quiet
    with _lock:
        if _transformers_quiet:
            return
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        _transformers_quiet = True
