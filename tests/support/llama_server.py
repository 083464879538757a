"""Start llama-cpp-python's real OpenAI-compatible server on 127.0.0.1 for tests and
benchmarks (the peer the `openai` provider is checked against)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def llama_server(
    model_path: Path, *, alias: str = "smollm2", n_ctx: int = 2048, startup_s: float = 180
) -> Iterator[str]:
    """Yield the server's base URL (…/v1); the server is stopped on exit. A server that
    fails to start raises with its own log in the message."""
    port = free_port()
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)  # noqa: SIM115
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited early:\n{Path(log.name).read_text()}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not start:\n{Path(log.name).read_text()}")
            time.sleep(0.5)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        Path(log.name).unlink(missing_ok=True)
