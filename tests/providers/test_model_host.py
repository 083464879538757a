"""The model host: local models in a child process, with real models (the light profile's).

What is checked: calls through the host give the numbers the same calls give in this
process; Cancel returns within a second and the host stops the call; a host that does not
answer a stop, dies of a native fault, hangs past the deadline or never starts costs one
call and says so in the teacher's words; an idle host exits."""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from quizsmith.errors import (
    STOPS_THE_JOB,
    CancelledError,
    CapabilityError,
    ModelHostError,
    QuizsmithError,
)
from quizsmith.jobs import CancelToken, cancel_scope
from quizsmith.providers import Message, host_client, provider_for
from quizsmith.providers.host_protocol import portable_error
from quizsmith.providers.hosted import HostedProvider
from quizsmith.settings import Settings

#: A prompt the 135M model continues for as long as it is allowed to (greedy counting).
COUNTING = "1, 2, 3, 4, 5, 6, 7, 8,"
LONG = 1500  # tokens: about 15 s on one core, far longer than any check below waits


def hosted_smollm() -> Any:
    provider = provider_for("smollm2-135m-instruct", Settings())
    assert isinstance(provider, HostedProvider)
    return provider


class Background:
    """A model call on a thread of its own, under a cancel token, as a job's would run."""

    def __init__(self, call: Any) -> None:
        self.token = CancelToken()
        self.error: BaseException | None = None
        self.value: Any = None
        self.ended_at = 0.0

        def run() -> None:
            with cancel_scope(self.token):
                try:
                    self.value = call()
                except BaseException as exc:
                    self.error = exc
                finally:
                    self.ended_at = time.monotonic()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()


def wait_until(condition: Any, timeout: float, step: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


#: A chain-of-thought request, as the standard profile's reader makes (greedy, long).
THINKING = [Message("user", "Think step by step, then count from 1 to 500, one per line.")]


def start_long_call(host: host_client.ModelHost, kind: str = "complete") -> Background:
    """A long generation, returned once the host is running it (its model loaded)."""
    provider = hosted_smollm()
    provider.count_tokens("load the model first")
    if kind == "chat":
        call = Background(lambda: provider.chat(THINKING, max_tokens=LONG))
    else:
        call = Background(lambda: provider.complete(COUNTING, max_tokens=LONG))
    assert wait_until(lambda: host.admin("running_calls") >= 1, 10.0)
    time.sleep(0.5)  # well into its tokens
    return call


def test_errors_cross_the_channel_with_their_fix() -> None:
    from quizsmith.providers.http_transport import HttpError

    error = HttpError("The server answered 429.", "Wait a minute.", status=429)
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is HttpError and back.fix == "Wait a minute." and back.status == 429
    assert str(back) == str(error)
    # One that cannot travel is named in a ProviderError rather than lost.
    unpicklable = RuntimeError(threading.Lock())
    assert "RuntimeError" in str(portable_error(unpicklable))
    assert ModelHostError in STOPS_THE_JOB and CancelledError in STOPS_THE_JOB


def test_describe_end_names_the_signal() -> None:
    assert host_client.describe_end(-11) == "signal 11, SIGSEGV"
    assert "run out of memory" in host_client.describe_end(-9)
    assert host_client.describe_end(3) == "exit 3"


@pytest.mark.slow
def test_calls_through_the_host_equal_the_same_calls_in_this_process(
    model_host: host_client.ModelHost, smollm: Any, minilm: Any
) -> None:
    hosted = hosted_smollm()
    messages = [Message("user", "What is the capital of France? Answer in one word.")]
    assert hosted.chat(messages, max_tokens=16).text == smollm.chat(messages, max_tokens=16).text
    prefix = "The Nile flows into the"
    options = [" Mediterranean Sea", " Red Sea", " Atlantic Ocean"]
    here = smollm.option_logprobs(prefix, options, reuse_prefix="The Nile")
    there = hosted.option_logprobs(prefix, options, reuse_prefix="The Nile")
    assert [o.total for o in there] == [o.total for o in here]  # bit for bit
    assert hosted.count_tokens(prefix) == smollm.count_tokens(prefix)
    assert hosted.context_size == smollm.context_size
    assert hosted.is_chat_model is True and hosted.can_logprob and hosted.name == "llamacpp"
    assert hosted.info == smollm.info

    embedder = provider_for("all-minilm-l6-v2", Settings())
    assert isinstance(embedder, HostedProvider) and embedder.can_embed
    texts = ["A river flows north.", "Plants make sugar from light."]
    for a, b in zip(embedder.embed(texts), minilm.embed(texts), strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-6
    vectors = embedder.token_embeddings(texts)
    assert [v.shape[1] for v in vectors] == [384, 384] and vectors[0].shape[0] >= 4

    # The embedding model runs from its ONNX export: the host never imports torch for it.
    loaded = set(model_host.admin("loaded_libraries"))
    assert loaded >= {"llama_cpp", "onnxruntime"} and "torch" not in loaded
    assert model_host.admin("memory")["rss_mib"] > 50


@pytest.mark.slow
def test_an_error_in_the_host_keeps_its_kind_and_fix(model_host: host_client.ModelHost) -> None:
    embedder = provider_for("all-minilm-l6-v2", Settings())
    with pytest.raises(CapabilityError) as raised:
        embedder.chat([Message("user", "hello")])
    assert raised.value.fix  # says which model to choose
    assert embedder.embed(["the host still serves"])  # one failed call costs nothing else


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["chat", "complete"])
def test_cancel_returns_within_a_second_and_the_host_stops_the_call(
    model_host: host_client.ModelHost, kind: str
) -> None:
    call = start_long_call(model_host, kind)
    pid = model_host.pid
    cancelled_at = time.monotonic()
    call.token.cancel()
    call.thread.join(5.0)
    assert isinstance(call.error, CancelledError)
    assert call.ended_at - cancelled_at < 1.0
    # The host stopped the generation at its next token: no call runs, and it was not killed.
    assert wait_until(lambda: model_host.admin("running_calls") == 0, 1.0)
    assert model_host.pid == pid
    # The partial answer was not remembered: the same call asked again runs to its end.
    again = hosted_smollm().complete(COUNTING, max_tokens=12)
    assert again.completion_tokens == 12


@pytest.mark.slow
def test_a_host_that_does_not_answer_a_stop_is_killed_and_started_again(
    model_host: host_client.ModelHost,
) -> None:
    call = start_long_call(model_host)
    pid = model_host.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # hung: it can answer nothing
    try:
        cancelled_at = time.monotonic()
        call.token.cancel()
        call.thread.join(5.0)
        assert isinstance(call.error, CancelledError)
        assert call.ended_at - cancelled_at < 1.0
        assert wait_until(lambda: not Path(f"/proc/{pid}").exists(), 5.0)
    finally:
        if Path(f"/proc/{pid}").exists():
            os.kill(pid, signal.SIGKILL)
    result = hosted_smollm().complete(COUNTING, max_tokens=4)
    assert result.completion_tokens == 4 and model_host.pid not in (None, pid)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGKILL])
def test_a_dead_host_fails_its_call_with_a_message_and_a_report(
    model_host: host_client.ModelHost, isolated_dirs: Path, sig: signal.Signals
) -> None:
    call = start_long_call(model_host)
    pid = model_host.pid
    assert pid is not None
    os.kill(pid, sig)
    call.thread.join(10.0)
    assert isinstance(call.error, ModelHostError), call.error
    message = call.error.message
    assert f"The model stopped unexpectedly (signal {int(sig)}, {sig.name}" in message
    assert "Your items are saved; the next run starts it again." in message
    reports = sorted((isolated_dirs / "logs").glob("model-host-*.log"))
    assert reports and str(reports[-1]) in call.error.fix
    report = reports[-1].read_text(encoding="utf-8")
    assert f"{sig.name}" in report and "smollm2-135m-instruct.complete" in report
    if sig == signal.SIGSEGV:
        assert "Segmentation fault" in report  # faulthandler's Python stack, from the log
    # The next call starts a fresh host and works.
    assert hosted_smollm().complete(COUNTING, max_tokens=4).completion_tokens == 4
    assert model_host.pid not in (None, pid)


def test_deaths_at_start_name_the_fix(
    model_host: host_client.ModelHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    crash_at_start = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    monkeypatch.setattr(host_client, "host_command", lambda: [sys.executable, "-c", crash_at_start])
    messages = []
    for _ in range(2):
        with pytest.raises(ModelHostError) as raised:
            model_host.admin("pid")
        messages.append(str(raised.value))
    assert "signal 11, SIGSEGV" in messages[0] and "--prepare" not in messages[0]
    assert "2 times in a row" in messages[1] and "quizsmith models --prepare" in messages[1]


@pytest.mark.slow
def test_a_call_past_the_deadline_is_a_hang(model_host: host_client.ModelHost) -> None:
    hosted_smollm().count_tokens("load the model first")
    pid = model_host.pid
    model_host.call_deadline_s = 1.0
    started = time.monotonic()
    with pytest.raises(ModelHostError) as raised:
        hosted_smollm().complete(COUNTING, max_tokens=LONG)
    assert time.monotonic() - started < 5.0
    assert "no answer within 1 s" in raised.value.message
    model_host.call_deadline_s = 600.0
    assert hosted_smollm().complete(COUNTING, max_tokens=4).completion_tokens == 4
    assert model_host.pid != pid


def test_an_idle_host_exits_and_the_next_call_starts_it(
    model_host: host_client.ModelHost,
) -> None:
    model_host.release_after_s = 0.4
    pid = model_host.admin("pid")
    assert wait_until(lambda: model_host.pid is None, 5.0)
    assert wait_until(lambda: not Path(f"/proc/{pid}").exists(), 5.0)
    assert model_host.admin("pid") != pid


def test_a_model_host_error_is_a_quizsmith_error_the_job_shows() -> None:
    error = ModelHostError("The model stopped unexpectedly (signal 11, SIGSEGV).", "")
    assert isinstance(error, QuizsmithError) and error.message.startswith("The model")


@pytest.mark.slow
def test_a_call_that_meets_an_idle_release_runs_again_on_a_fresh_host(
    model_host: host_client.ModelHost,
) -> None:
    provider = hosted_smollm()
    provider.count_tokens("load the model first")
    pid = model_host.pid
    call = Background(lambda: provider.complete(COUNTING, max_tokens=60))
    assert wait_until(lambda: model_host.admin("running_calls") >= 1, 10.0)
    model_host.close(why=host_client.RELEASED)  # as the idle timer does
    call.thread.join(60.0)
    assert call.error is None, call.error
    assert call.value.completion_tokens == 60
    assert model_host.pid not in (None, pid)


def test_the_host_runs_with_few_malloc_arenas(model_host: host_client.ModelHost) -> None:
    # Its worker threads would each keep freed memory in an arena of their own (the peak the
    # bench measures); a value the user's environment sets is theirs to keep.
    pid = model_host.admin("pid")
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    wanted = os.environ.get(host_client.MALLOC_ARENAS_ENV, host_client.MALLOC_ARENAS)
    assert f"{host_client.MALLOC_ARENAS_ENV}={wanted}".encode() in environ
