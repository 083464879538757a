"""The model host: a child process that owns the local models and serves the provider
protocol to the app (host_client.py starts it; host_protocol.py is the channel).

Why a process of its own: a native fault in llama.cpp or torch, or the system killing the
largest process when memory runs out, then ends this process, not the window with the
teacher's unsaved edits; a call can be stopped; and the window's process never imports the
model libraries (their import stalled its event loop for 150-310 ms).

The providers' own code runs here unchanged (`manager.provider_for` in this process, with
the host switched off), so their kept passage states and remembered answers work as they do
in one process. Each call runs on a thread of its own, as the app's worker threads would run
them: calls to one model wait for its lock, calls to different models overlap. The main
thread only reads requests, so it answers a stop at once even while a call runs in native
code (llama.cpp releases the GIL while it computes).

Run as `python -m quizsmith.providers.host_server` (or `quizsmith-app --model-host` frozen).
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from quizsmith.providers import host_protocol, interrupt

log = logging.getLogger("quizsmith.model_host")

#: Calls that run at once: as many as the app's jobs make in parallel (calls to one model
#: wait for its lock anyway); more wait their turn.
WORKERS = 8


def process_memory(pid: int | str = "self") -> dict[str, float]:
    """A process's resident and peak memory, in MiB (Linux's /proc; {} elsewhere)."""
    found: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found["rss_mib" if key == "VmRSS" else "peak_mib"] = (
                        int(value.split()[0]) / 1024
                    )
    except OSError:
        pass
    return found


class Host:
    def __init__(self, requests: IO[bytes], replies: IO[bytes]) -> None:
        self.requests = requests
        self.replies = replies
        self.write_lock = threading.Lock()
        self.stops: dict[int, threading.Event] = {}
        self.stops_lock = threading.Lock()
        # Calls run on a few long-lived threads, not a new one each: llama.cpp's OpenMP build
        # keeps a team of worker threads per calling thread, and a new caller each time
        # built a new team (measured: re-scores 11% slower than in one process).
        self.workers = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="model-call")

    def reply(self, message: Any) -> None:
        with self.write_lock:
            host_protocol.send(self.replies, message)

    def serve(self) -> None:
        log.info("model host %d ready (python %s)", os.getpid(), sys.version.split()[0])
        self.reply(("ready", os.getpid()))
        while True:
            try:
                message = host_protocol.receive(self.requests)
            except EOFError:
                break  # the app closed the channel (or died): nothing is left to serve
            kind = message[0]
            if kind == "close":
                break
            if kind == "stop":
                with self.stops_lock:
                    event = self.stops.get(message[1])
                if event is not None:
                    event.set()
                self.reply(("stopping", message[1]))
            elif kind in ("call", "admin"):
                event = threading.Event()
                with self.stops_lock:
                    self.stops[message[1]] = event
                handler = self._call if kind == "call" else self._admin
                self.workers.submit(handler, event, *message[1:])
            else:
                log.warning("unknown request %r", kind)
        self.shut_down()

    def shut_down(self) -> None:
        with self.stops_lock:
            for event in self.stops.values():
                event.set()
        from quizsmith.providers import manager

        manager.close_all()

    def _finish(self, call_id: int, outcome: tuple[str, Any]) -> None:
        with self.stops_lock:
            self.stops.pop(call_id, None)
        # If the app is gone the reply goes nowhere; the main thread ends at EOF.
        with contextlib.suppress(OSError):
            self.reply((outcome[0], call_id, outcome[1]))

    def _call(
        self,
        stop: threading.Event,
        call_id: int,
        ref: str,
        settings: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        from quizsmith.providers import manager

        try:
            with interrupt.stop_signal(stop):
                provider = manager.provider_for(ref, settings)
                if method == "getattr":
                    value = getattr(provider, args[0])
                elif method == "setattr":
                    setattr(provider, args[0], args[1])
                    value = None
                else:
                    value = getattr(provider, method)(*args, **kwargs)
            outcome: tuple[str, Any] = ("ok", value)
        except Exception as exc:
            log.info("call %s.%s failed: %s", ref, method, exc, exc_info=True)
            outcome = ("err", host_protocol.portable_error(exc))
        self._finish(call_id, outcome)

    def _admin(self, stop: threading.Event, call_id: int, name: str, args: tuple[Any, ...]) -> None:
        try:
            outcome: tuple[str, Any] = ("ok", ADMIN[name](self, *args))
        except Exception as exc:
            outcome = ("err", host_protocol.portable_error(exc))
        self._finish(call_id, outcome)


def _loaded_libraries(host: Host) -> list[str]:
    return [name for name in host_protocol.MODEL_LIBRARIES if name in sys.modules]


def _forget_kept_state(host: Host) -> None:
    """For benchmarks that must not time a repeat (llamacpp_models.forget_kept_state)."""
    if "quizsmith.providers.llamacpp_models" in sys.modules:
        from quizsmith.providers.llamacpp_models import forget_kept_state

        forget_kept_state()


def _running_calls(host: Host) -> int:
    """Calls still running, this request not counted."""
    with host.stops_lock:
        return max(0, len(host.stops) - 1)


ADMIN = {
    "pid": lambda host: os.getpid(),
    "memory": lambda host: process_memory(),
    "loaded_libraries": _loaded_libraries,
    "forget_kept_state": _forget_kept_state,
    "running_calls": _running_calls,
}


def main() -> int:
    # The channel is a private copy of stdout; stdout itself then points at stderr, so a
    # native library printing to fd 1 cannot corrupt it.
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    requests = sys.stdin.buffer
    # This process runs the models itself; it must never start a host of its own.
    os.environ[host_protocol.HOST_ENV] = "0"
    # Ctrl-C in a terminal reaches the whole process group: the app decides what stops
    # (it tells the host, or closes it); the host must not die of it mid-call.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.enable(file=sys.stderr)  # a native fault leaves the Python stack in the log
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    Host(requests, replies).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
