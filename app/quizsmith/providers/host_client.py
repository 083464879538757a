"""The app's side of the model host: starts it, sends it provider calls, and turns its
death, a hang or a cancel into an error the job shows (host_server.py is the other side).

One host per process that asks for a local model, started on the first call. What a fault
costs: the calls in flight fail with ModelHostError (which stops their jobs, errors.py), a
crash log is written, and the next call starts a fresh host. Cancel: the waiting call
returns at once; the host is told to stop the call (a generation stops at its next token)
and is killed and restarted if it does not answer within STOP_ANSWER_S, or if the stopped
call still runs STOPPED_CALL_GRACE_S later. A call that runs past the deadline in settings
is a hang: the host is killed. After `release_after_s` without a call the host exits, which
gives back every byte of its models; the next call starts it again.

Why this module is long: the process's start and end, the reader thread that answers calls,
the waiting callers, the stop watcher and the idle timer all work on one state (the running
process, the calls in flight, the deaths) under one lock; split, each part would reach into
another's state. What is said and kept after a death is apart, in host_faults.py.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizsmith.errors import CancelledError, ModelHostError
from quizsmith.providers import host_protocol
from quizsmith.providers.host_faults import describe_end, host_error, host_log, write_crash_report

log = logging.getLogger(__name__)

#: How long a started host may take to say it is ready (it imports only Quizsmith's core).
START_TIMEOUT_S = 60.0
#: A told-to-stop host must answer within this; one that does not is hung and is killed.
STOP_ANSWER_S = 1.0
#: A stopped call that still runs this long after the stop is hung in native code: killed.
#: Not 1 s: llama.cpp reads a prompt in 512-token batches that a stop cannot split (a few
#: seconds for the standard model on two cores), and a kill costs every loaded model.
STOPPED_CALL_GRACE_S = 30.0
#: Deaths before the first answer, in a row, after which the message names the fix.
DEATHS_BEFORE_FIX = 2
#: glibc's malloc arenas for the host (unless the environment names its own). By default each
#: thread that allocates may get an arena of its own (up to 8 per core), and memory freed in
#: one stays there: the host runs each call on a worker thread. Measured on a standard quiz
#: (bench passage physical_water_cycle, one process each way): host peak 2,571 -> 2,464 MiB
#: with two arenas, the quiz no slower (65 s and 62 s); docs/benchmarks.md has the bench.
MALLOC_ARENAS_ENV, MALLOC_ARENAS = "MALLOC_ARENA_MAX", "2"


def enabled() -> bool:
    """Whether local models run in a host (the default) rather than in this process."""
    return os.environ.get(host_protocol.HOST_ENV, "1").strip() not in ("0", "false", "no")


def host_command() -> list[str]:
    """How to start the host: the frozen app takes `--model-host` (packaging/)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--model-host"]
    return [sys.executable, "-m", "quizsmith.providers.host_server"]


#: Why the app ended a host that was idle (its calls, if one slipped in, try a new one).
RELEASED = "released"


class _ReleasedError(ModelHostError):
    """A call that reached a host being let go for idleness: sent again to a fresh one."""


def _closed_error() -> ModelHostError:
    return ModelHostError("The model host was closed.", "Try again.")


@dataclass
class _Call:
    epoch: int
    what: str
    done: threading.Event = field(default_factory=threading.Event)
    stop_answered: threading.Event = field(default_factory=threading.Event)
    #: The app asked the host to stop it (a cancel): its CancelledError is the answer.
    stopped: bool = False
    ok: bool = False
    value: Any = None


@dataclass
class _Process:
    epoch: int
    popen: subprocess.Popen[bytes]
    ready: threading.Event = field(default_factory=threading.Event)
    pid: int = 0
    #: Why the app ended it ("" while it runs or if it died by itself).
    ended_by_app: str = ""
    answered: bool = False
    #: Set (under the host's lock) once its calls were failed: a call registered later
    #: would wait for nothing.
    finished: bool = False


class ModelHost:
    def __init__(self, call_deadline_s: float = 600.0, release_after_s: float = 900.0) -> None:
        self.call_deadline_s = call_deadline_s
        self.release_after_s = release_after_s
        self._lock = threading.RLock()
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._epochs = itertools.count(1)
        self._process: _Process | None = None
        self._calls: dict[int, _Call] = {}
        self._deaths_at_start = 0
        self._last_used = time.monotonic()
        #: The last failure, for tests and the status line.
        self.last_error: ModelHostError | None = None
        self.starts = 0
        #: The host each job (by its cancel token) first called, and why hosts died: a job
        #: whose host died stops, even if it had no call running at that moment, rather
        #: than carry on with a fresh host as if nothing had happened.
        self._job_epochs: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._deaths: dict[int, ModelHostError] = {}

    # -- what callers use ----------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None else None

    def call(
        self,
        ref: str,
        settings: Any,
        method: str,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Run `method` of the provider for `ref` in the host and return its result (or raise
        its error)."""
        request = ("call", ref, settings, method, args, kwargs or {})
        return self._round_trip(request, f"{ref}.{method}")

    def admin(self, name: str, *args: Any) -> Any:
        """A host-wide request (host_server.ADMIN): pid, memory, loaded_libraries,
        forget_kept_state, running_calls."""
        return self._round_trip(("admin", name, args), name)

    def close(self, wait_s: float = 3.0, why: str = "closed") -> None:
        """Let the host finish and exit (killed if it does not within `wait_s`)."""
        with self._lock:
            process = self._process
            if process is None:
                return
            process.ended_by_app = why
            self._process = None
        try:
            with self._send_lock:
                stdin = process.popen.stdin
                if stdin is not None:
                    host_protocol.send(stdin, ("close",))
                    stdin.close()
        except (OSError, ValueError):
            pass
        try:
            process.popen.wait(wait_s)
        except subprocess.TimeoutExpired:
            process.popen.kill()
            process.popen.wait()

    def kill(self, reason: str) -> None:
        """End the host now (a hang, a stop it did not answer); its calls fail with `reason`."""
        with self._lock:
            process = self._process
            if process is None:
                return
            process.ended_by_app = reason
            self._process = None
        log.warning("killing the model host (pid %s): %s", process.pid, reason)
        process.popen.kill()

    # -- the round trip --------------------------------------------------------------------------
    def _round_trip(self, request: tuple[Any, ...], what: str) -> Any:
        from quizsmith.jobs import current_token

        token = current_token()
        if token is not None:
            token.raise_if_cancelled()
            death = self._deaths.get(self._job_epochs.get(token, 0))
            if death is not None:
                raise death
        # A second try only where the host was let go for idleness just as this call came.
        for attempt in (1, 2):
            self._last_used = time.monotonic()
            process = self._running()
            if token is not None:
                self._job_epochs.setdefault(token, process.epoch)
            call_id = next(self._ids)
            call = _Call(process.epoch, what)
            with self._lock:
                if process.finished:
                    if process.ended_by_app == RELEASED and attempt == 1:
                        continue
                    raise self._deaths.get(process.epoch) or _closed_error()
                self._calls[call_id] = call
            self._send(process, (request[0], call_id, *request[1:]))
            self._wait(call_id, call, token, what)
            self._last_used = time.monotonic()
            if call.ok:
                return call.value
            if isinstance(call.value, _ReleasedError) and attempt == 1:
                continue
            raise call.value
        raise _closed_error()

    def _wait(self, call_id: int, call: _Call, token: Any, what: str) -> None:
        """Until the call is answered; CancelledError at once when `token` is set."""
        deadline = time.monotonic() + self.call_deadline_s
        try:
            while not call.done.wait(0.05):
                if token is not None and token.cancelled:
                    self._stop(call_id, call)
                    raise CancelledError("Cancelled.", "")
                if time.monotonic() > deadline:
                    self.kill(f"no answer within {self.call_deadline_s:.0f} s ({what})")
                    if not call.done.wait(5.0):
                        raise self._died_error(
                            f"no answer within {self.call_deadline_s:.0f} s", False
                        )
                    return
        except KeyboardInterrupt:
            self._stop(call_id, call)
            raise

    def _send(self, process: _Process, message: tuple[Any, ...]) -> None:
        try:
            with self._send_lock:
                stdin = process.popen.stdin
                assert stdin is not None
                host_protocol.send(stdin, message)
        except (OSError, ValueError):
            # It died between the start and this request: the reader thread fails the call
            # with the cause as soon as it sees the end of the channel.
            log.info("could not send to the model host (pid %s)", process.pid)

    def _stop(self, call_id: int, call: _Call) -> None:
        """Tell the host to stop the call; a watcher kills it if it does not comply."""
        with self._lock:
            process = self._process
        if process is None or process.epoch != call.epoch or call.done.is_set():
            return
        call.stopped = True
        self._send(process, ("stop", call_id))

        def watch() -> None:
            if not call.stop_answered.wait(STOP_ANSWER_S) and not call.done.is_set():
                self._kill_if(process, f"it did not answer a stop within {STOP_ANSWER_S:.0f} s")
            elif not call.done.wait(STOPPED_CALL_GRACE_S):
                self._kill_if(
                    process, f"a stopped call ran on for {STOPPED_CALL_GRACE_S:.0f} s ({call.what})"
                )

        threading.Thread(target=watch, name="model-host-stop", daemon=True).start()

    def _kill_if(self, process: _Process, reason: str) -> None:
        with self._lock:
            if self._process is not process:
                return
        self.kill(reason)

    # -- the process -----------------------------------------------------------------------------
    def _running(self) -> _Process:
        with self._lock:
            process = self._process
            if process is None or process.popen.poll() is not None:
                process = self._start()
        if not process.ready.wait(START_TIMEOUT_S):
            self._kill_if(process, f"it did not start within {START_TIMEOUT_S:.0f} s")
        if not process.pid:
            # It ended before it was ready (or was killed above): the reader tells why.
            process.ready.wait(10.0)
            with self._lock:
                error = self.last_error if process.finished else None
            raise error or ModelHostError("The model host could not start.", "Try again.")
        return process

    def _start(self) -> _Process:
        epoch = next(self._epochs)
        log_path = host_log()
        env = dict(os.environ)
        env[host_protocol.HOST_ENV] = "0"
        env.setdefault(MALLOC_ARENAS_ENV, MALLOC_ARENAS)
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_root, env.get("PYTHONPATH", "")) if p
        )
        with open(log_path, "ab") as stderr:
            popen = subprocess.Popen(
                host_command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                close_fds=True,
            )
        process = _Process(epoch, popen)
        self._process = process
        self.starts += 1
        threading.Thread(
            target=self._read, args=(process,), name=f"model-host-reader-{epoch}", daemon=True
        ).start()
        if self.release_after_s > 0:
            threading.Thread(
                target=self._release_when_idle,
                args=(process,),
                name=f"model-host-idle-{epoch}",
                daemon=True,
            ).start()
        return process

    def _read(self, process: _Process) -> None:
        stdout = process.popen.stdout
        assert stdout is not None
        while True:
            try:
                message = host_protocol.receive(stdout)
            except (EOFError, OSError):
                break
            except Exception:
                log.exception("unreadable reply from the model host")
                continue
            kind = message[0]
            if kind == "ready":
                process.pid = int(message[1])
                process.ready.set()
                continue
            with self._lock:
                call = self._calls.get(message[1])
                if kind != "stopping":
                    self._calls.pop(message[1], None)
            if call is None:
                continue
            if kind == "stopping":
                call.stop_answered.set()
                continue
            process.answered = True
            call.ok, call.value = kind == "ok", message[2]
            closing = process.ended_by_app in (RELEASED, "closed")
            if closing and isinstance(call.value, CancelledError) and not call.stopped:
                # Stopped because the app closed or let go of the host, not by its caller.
                call.value = self._ended_error(process)
            call.done.set()
        self._ended(process)

    def _ended(self, process: _Process) -> None:
        process.popen.wait()
        how = describe_end(process.popen.returncode)
        with self._lock:
            if self._process is process:
                self._process = None
            calls = [(i, c) for i, c in self._calls.items() if c.epoch == process.epoch]
            for call_id, _ in calls:
                self._calls.pop(call_id, None)
            if process.ended_by_app in (RELEASED, "closed"):
                error = self._ended_error(process)
            else:
                if process.answered:
                    self._deaths_at_start = 0
                else:
                    self._deaths_at_start += 1
                at_start = not process.answered and self._deaths_at_start >= DEATHS_BEFORE_FIX
                error = self._died_error(process.ended_by_app or how, at_start, process, calls)
                self.last_error = error
                self._deaths[process.epoch] = error
            process.finished = True
        process.ready.set()  # a start that waits on it learns the end at once
        for _, call in calls:
            call.ok, call.value = False, error
            call.done.set()

    @staticmethod
    def _ended_error(process: _Process) -> ModelHostError:
        if process.ended_by_app == RELEASED:
            return _ReleasedError("The model host was let go.", "Try again.")
        return _closed_error()

    def _died_error(
        self,
        how: str,
        at_start: bool,
        process: _Process | None = None,
        calls: list[tuple[int, _Call]] | None = None,
    ) -> ModelHostError:
        report = write_crash_report(
            how, process.pid if process else None, [c.what for _, c in calls or []]
        )
        ended_by_app = process is not None and bool(process.ended_by_app)
        deaths = self._deaths_at_start if at_start else 0
        return host_error(how, report, deaths_at_start=deaths, ended_by_app=ended_by_app)

    def _release_when_idle(self, process: _Process) -> None:
        """Let the host exit after `release_after_s` without a call: its memory goes back."""
        period = max(0.05, min(30.0, self.release_after_s / 4))
        while True:
            time.sleep(period)
            with self._lock:
                if self._process is not process:
                    return
                busy = any(c.epoch == process.epoch for c in self._calls.values())
                idle = time.monotonic() - self._last_used
            if not busy and idle >= self.release_after_s:
                log.info("model host idle for %.0f s: releasing its models", idle)
                self.close(why=RELEASED)
                return


_shared: ModelHost | None = None
_shared_lock = threading.Lock()
_exit_hook: list[bool] = []


def shared_host() -> ModelHost:
    """This process's host (one per app or CLI run), with the deadlines in settings."""
    global _shared
    with _shared_lock:
        if _shared is None:
            from quizsmith import settings as settings_mod
            from quizsmith.errors import QuizsmithError

            try:
                s = settings_mod.load()
                _shared = ModelHost(s.call_deadline_s, s.release_models_after_min * 60.0)
            except QuizsmithError:
                _shared = ModelHost()
            if not _exit_hook:
                # The host would end by itself when its channel closes; closing it first
                # lets it free its models in order rather than die mid-call.
                atexit.register(close_shared)
                _exit_hook.append(True)
        return _shared


def close_shared() -> None:
    """End this process's host, if one runs (the app's close, the CLI's end)."""
    global _shared
    with _shared_lock:
        host, _shared = _shared, None
    if host is not None:
        host.close()


def forget_kept_state() -> None:
    """Drop every model's kept prompt states and remembered answers, in this process and in
    the host where one runs (the models stay loaded): for benchmarks and tests that must not
    time a repeat."""
    if "quizsmith.providers.llamacpp_models" in sys.modules:
        from quizsmith.providers.llamacpp_models import forget_kept_state as forget_here

        forget_here()
    host = _shared
    if host is not None and host.pid is not None:
        host.admin("forget_kept_state")


def host_memory() -> dict[str, float]:
    """The running host's resident and peak memory in MiB ({} when none runs)."""
    host = _shared
    if host is None or host.pid is None:
        return {}
    return dict(host.admin("memory"))
