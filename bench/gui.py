"""Benchmark: how fast the desktop app starts, and how responsive it stays while models work.

1. Launch: time from starting `.venv/bin/python -m quizsmith.cli gui BANK` (offscreen Qt, a
   fresh config and data folder and a new bank each time) to the window being shown with
   the event loop running: the app prints a monotonic time stamp on the loop's first turn
   (QUIZSMITH_REPORT_READY=1, see quizsmith/gui/app.py), together with the model libraries
   already imported, which must be none (models run in the model host). Median of
   --launches runs.
2. Event-loop latency, in this process: the main window generates an --n item multiple-
   choice quiz from resources/sample_passage.txt (the Generate button, so the app's own
   worker and settings: ranking on, --candidates per fact, the --profile a first start picks
   on this machine), then the items are scored with the default live metrics (the overall
   estimate) in the app's worker. A 10 ms precise QTimer runs on the GUI thread throughout;
   each tick's lateness (time since the previous tick minus 10 ms) is recorded; p50, p99 and
   max are reported. The models are not loaded beforehand, so loading them is part of what
   is measured. Also recorded: the time to the first item (a teacher's first wait) and how
   many different steps the status bar showed before it.
   With --cold, nothing is cached when it starts, as on a teacher's first start after the
   install (issue 47: "Finding facts" for 2 min 08 s, the first item at 5 min 37 s): a
   fresh cache folder (no llama.cpp check on record; the assembled model files are linked
   from the usual cache, as the install leaves them), the model files and the English
   parser dropped from the operating system's file cache where it lets a user do that
   (posix_fadvise; Linux), and a fresh settings folder, so the first start picks the
   profile. The steps shown before the first item are listed with their times.
3. Closing during a job (issue 19: the window froze 10-14 s): the window starts a real
   generation; once a model is at work (--close-after seconds after the first step) the
   window is closed. Measured: how long `close()` takes until the window is gone (target:
   under 1 s), how long the job then takes to end, its outcome (it must be cancelled, not
   failed), and the bank's integrity check afterwards. --close-runs runs.

    .venv/bin/python bench/gui.py [--launches 5] [--n 5] [--candidates 3] [--threads 0]
                                  [--close-runs 3] [--close-after 3] [--only close|latency]
                                  [--cold]

Results in bench/results/gui.json (sections gui, gui-latency and gui-close).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import git_revision, machine, median, write_results

ROOT = Path(__file__).resolve().parents[1]
LAUNCH_TARGET_S = 3.0
P99_TARGET_MS = 50.0
TICK_MS = 10
CLOSE_TARGET_S = 1.0


def launch_once(timeout_s: float = 120.0) -> dict[str, Any]:
    from quizsmith.gui.app import READY_PREFIX, REPORT_READY_ENV

    with tempfile.TemporaryDirectory(prefix="quizsmith-bench-") as tmp:
        folder = Path(tmp)
        env = {
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            REPORT_READY_ENV: "1",
            "QUIZSMITH_CONFIG_DIR": str(folder / "config"),
            "QUIZSMITH_DATA_DIR": str(folder / "data"),
            "QUIZSMITH_LOG_DIR": str(folder / "logs"),
            "QUIZSMITH_CACHE_DIR": os.environ.get("QUIZSMITH_CACHE_DIR", str(folder / "cache")),
        }
        command = [sys.executable, "-m", "quizsmith.cli", "gui", str(folder / "bank.sqlite")]
        started = time.monotonic()
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None
            line = ""
            deadline = started + timeout_s
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line or line.startswith(READY_PREFIX):
                    break
            if not line.startswith(READY_PREFIX):
                proc.kill()
                _, err = proc.communicate(timeout=30)
                raise SystemExit(f"the app did not report ready: {err[-2000:]}")
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(30)
        _, stamp, models = line.split()
        return {"seconds": float(stamp) - started, "models": models.removeprefix("models=")}


class LatencyMeter:
    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.lateness_ms: list[float] = []
        self.last = 0.0

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lateness_ms.append(max(0.0, (now - self.last) * 1000 - TICK_MS))
        self.last = now

    def stop(self) -> None:
        self.timer.stop()

    def summary(self) -> dict[str, float]:
        values = sorted(self.lateness_ms)
        if not values:
            return {"ticks": 0, "p50_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
        return {
            "ticks": len(values),
            "p50_ms": statistics.median(values),
            "p99_ms": values[min(len(values) - 1, round(0.99 * (len(values) - 1)))],
            "max_ms": values[-1],
        }


def wait_for(app: Any, done: Any, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.002)  # the loop sleeps as exec() would between events
    if not done():
        raise SystemExit(f"timed out after {timeout_s:.0f} s")


def model_files(profile: str) -> list[Path]:
    """The files a generation on `profile` reads its models from: the catalog models of the
    profile's roles (and the overall estimate's signal models), and the English parser's."""
    import importlib.util

    from quizsmith.errors import QuizsmithError
    from quizsmith.generation.parser import PIPELINE_PACKAGE
    from quizsmith.operations.model_loading import local_models
    from quizsmith.providers import catalog
    from quizsmith.settings import Settings

    files: list[Path] = []
    models = catalog.all_models([])
    for ref in local_models(Settings(profile=profile)):
        try:
            found = catalog.locate(catalog.find(ref, models), assemble=False)
        except QuizsmithError:
            continue
        files += [found] if found.is_file() else [f for f in found.rglob("*") if f.is_file()]
    spec = importlib.util.find_spec(PIPELINE_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            files += [f for f in Path(folder).rglob("*") if f.is_file()]
    return files


def drop_from_file_cache(files: list[Path]) -> int:
    """Ask the operating system to drop the files' pages from its cache (clean pages of
    files this user can read; no root needed); the bytes asked for, 0 where it cannot."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return 0
    dropped = 0
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            dropped += path.stat().st_size
        except OSError:
            pass
        finally:
            os.close(fd)
    return dropped


def cold_start(folder: Path, profile: str) -> dict[str, Any]:
    """Make the coming run start with nothing cached (see the module's --cold): a fresh
    cache folder beside `folder`'s settings, with the usual cache's assembled models linked
    in, and the model files dropped from the file cache. What was done, for the results."""
    from quizsmith import paths

    usual = paths.cache_dir()
    cache = folder / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    if (usual / "models").is_dir():
        (cache / "models").symlink_to(usual / "models", target_is_directory=True)
    os.environ["QUIZSMITH_CACHE_DIR"] = str(cache)
    files = model_files(profile)
    return {"files": len(files), "dropped_mib": drop_from_file_cache(files) / 2**20}


def latency_run(
    n: int, candidates: int, threads: int, profile: str, cold: bool = False
) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from quizsmith import paths
    from quizsmith.bank.store import ItemBank
    from quizsmith.gui import jobs
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    text = (paths.resources_dir() / "sample_passage.txt").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="quizsmith-bench-") as tmp:
        os.environ["QUIZSMITH_CONFIG_DIR"] = str(Path(tmp) / "config")
        os.environ["QUIZSMITH_DATA_DIR"] = str(Path(tmp) / "data")
        cold_info = cold_start(Path(tmp), profile) if cold else {}
        bank = ItemBank(Path(tmp) / "bank.sqlite")
        settings = Settings(n_threads=threads, profile=profile)
        window = MainWindow(bank, settings)
        window.show()
        app.processEvents()
        window.new_passage()
        panel = window.passage_panel
        panel.title_edit.setText("Photosynthesis")
        panel.text_edit.setPlainText(text)
        panel.count_box.setValue(n)
        for kind, box in panel.type_checks.items():
            box.setChecked(kind == "mcq")
        panel.candidates_box.setValue(candidates)
        panel.rank_check.setChecked(True)
        meter = LatencyMeter()
        meter.start()
        started = time.perf_counter()
        panel.generate_button.click()
        worker = window.progress.worker
        if worker is None:
            raise SystemExit("generation did not start")
        first_item: list[float] = []
        steps: list[str] = []
        #: (seconds since Generate, message) of each different step before the first item.
        timeline: list[tuple[float, str]] = []

        def on_progress(event: Any) -> None:
            # The time a teacher waits for the first item (issue 27: 2 min 47 s, with one
            # message for the first minute) and the steps shown before it.
            if not first_item:
                steps.append(event.message)
                if not timeline or timeline[-1][1] != event.message:
                    timeline.append((time.perf_counter() - started, event.message))
                if getattr(event.payload, "id", None) is not None:
                    first_item.append(time.perf_counter() - started)

        worker.signals.progress.connect(on_progress)
        wait_for(app, lambda: worker.outcome != "pending", 3600)
        generated_s = time.perf_counter() - started
        wait_for(app, lambda: not window.runner.running, 60)
        note = panel.note.text()
        ids = [int(i.id) for i in window.items_of_passage(panel.passage.id) if i.id is not None]
        scoring_s = 0.0
        if ids:
            started = time.perf_counter()
            scorer = window.runner.start(
                jobs.score_and_store_job(bank, ids, jobs.default_live_metrics(), settings)
            )
            window.progress.attach(scorer, f"Scoring {len(ids)} item(s)")
            wait_for(app, lambda: scorer.outcome != "pending", 3600)
            scoring_s = time.perf_counter() - started
        wait_for(app, lambda: not window.runner.running, 60)
        meter.stop()
        window.close()
        window.runner.wait(60_000)
        bank.close()
    from quizsmith.gui.app import MODEL_LIBRARIES
    from quizsmith.providers.host_client import host_memory
    from quizsmith.providers.host_server import process_memory

    return {
        **meter.summary(),
        # The models run in the model host: none of their libraries in this process.
        "model_libraries_in_window": [m for m in MODEL_LIBRARIES if m in sys.modules],
        "window_rss_mib": process_memory().get("rss_mib", 0.0),
        "host_memory_mib": host_memory(),
        "generation_outcome": worker.outcome,
        "generation_s": generated_s,
        "first_item_s": first_item[0] if first_item else None,
        "steps_before_first_item": len(dict.fromkeys(steps)),
        "timeline": [{"s": round(t, 1), "step": m} for t, m in timeline],
        "cold": cold_info,
        "items": len(ids),
        "note": note,
        "scoring_s": scoring_s,
    }


def close_during_job_once(threads: int, close_after_s: float) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from quizsmith import paths
    from quizsmith.bank.store import ItemBank
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    text = (paths.resources_dir() / "sample_passage.txt").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="quizsmith-bench-") as tmp:
        os.environ["QUIZSMITH_CONFIG_DIR"] = str(Path(tmp) / "config")
        os.environ["QUIZSMITH_DATA_DIR"] = str(Path(tmp) / "data")
        bank = ItemBank(Path(tmp) / "bank.sqlite")
        window = MainWindow(bank, Settings(n_threads=threads))
        window.show()
        app.processEvents()
        window.new_passage()
        panel = window.passage_panel
        panel.text_edit.setPlainText(text)
        panel.count_box.setValue(3)
        panel.candidates_box.setValue(2)
        panel.rank_check.setChecked(True)
        steps: list[str] = []
        worker = window.generate()
        if worker is None:
            raise SystemExit("generation did not start")
        worker.signals.progress.connect(lambda e: steps.append(e.message))
        wait_for(app, lambda: len(steps) >= 2 or worker.outcome != "pending", 600)
        deadline = time.monotonic() + close_after_s
        wait_for(app, lambda: time.monotonic() >= deadline, close_after_s + 5)
        busy_when_closed = worker.outcome == "pending"
        started = time.perf_counter()
        window.close()
        app.processEvents()
        close_s = time.perf_counter() - started
        visible = window.isVisible()
        wait_for(app, lambda: worker.outcome != "pending", 600)
        job_end_s = time.perf_counter() - started
        window.runner.wait(60_000)
        wait_for(app, lambda: bool(panel.note.text()), 10)
        note = panel.note.text()
        problems = bank.integrity_problems()
        kept = len(window.items_of_passage(panel.passage.id if panel.passage else None))
        bank.close()
    return {
        "busy_when_closed": busy_when_closed,
        "last_step": steps[-1] if steps else "",
        "close_s": close_s,
        "window_visible_after_close": visible,
        "job_end_after_close_s": job_end_s,
        # A cancel between two steps ends the worker ("cancelled"); one during a model call
        # ends the generation early with what it finished ("finished", marked cancelled).
        # (the window's note then says "Cancelled, N item(s) kept.").
        "outcome": "cancelled"
        if worker.outcome == "cancelled" or note.startswith("Cancelled")
        else worker.outcome,
        "note": note,
        "items_kept": kept,
        "bank_problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument(
        "--profile",
        default=None,
        help="model profile of the latency run (default: what a first start picks here)",
    )
    parser.add_argument("--n", type=int, default=5, help="items to generate")
    parser.add_argument("--candidates", type=int, default=3, help="candidates per fact")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: cores)")
    parser.add_argument("--close-runs", type=int, default=3, help="close-during-job runs")
    parser.add_argument(
        "--close-after", type=float, default=3.0, help="seconds of model work before closing"
    )
    parser.add_argument(
        "--only",
        choices=("close", "latency"),
        help="run only this part (results go to gui-close.* or gui-latency.*)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="the latency run starts with nothing cached, as a first start (see above)",
    )
    args = parser.parse_args()
    if args.profile is None:
        from quizsmith.providers.machine_profile import pick, this_machine

        args.profile = pick(this_machine())[0]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    if args.only == "latency":
        latency = latency_run(args.n, args.candidates, args.threads, args.profile, args.cold)
        print("latency", json.dumps(latency), flush=True)
        write_latency_results(latency, args)
        return

    closes = []
    for k in range(args.close_runs):
        closes.append(close_during_job_once(args.threads, args.close_after))
        print(f"close {k + 1}: {json.dumps(closes[-1])}", flush=True)
    if args.only == "close":
        write_close_results(closes, args)
        return

    launches = []
    for k in range(args.launches):
        launches.append(launch_once())
        print(f"launch {k + 1}: {json.dumps(launches[-1])}", flush=True)
    latency = latency_run(args.n, args.candidates, args.threads, args.profile, args.cold)
    print("latency", json.dumps(latency), flush=True)

    info = machine()
    command = (
        f".venv/bin/python bench/gui.py --launches {args.launches} --n {args.n} "
        f"--candidates {args.candidates} --threads {args.threads} --profile {args.profile}"
        + (" --cold" if args.cold else "")
    )
    launch_median = median([r["seconds"] for r in launches])
    data = {
        "machine": info,
        "command": command,
        "revision": git_revision(),
        "launches": launches,
        "launch_median_s": launch_median,
        "latency": latency,
        "close_during_job": closes,
        "targets": {
            "launch_s": LAUNCH_TARGET_S,
            "p99_ms": P99_TARGET_MS,
            "close_s": CLOSE_TARGET_S,
        },
    }
    models = sorted({r["models"] for r in launches})
    seconds = [r["seconds"] for r in launches]
    md = [
        "## Desktop app (`bench/gui.py`)",
        "",
        f"Command: `{command}` at revision {data['revision']}, {info['date']}; {info['cpu']}, "
        f"{info['logical_cpus']} logical CPUs, Python {info['python']}; Qt offscreen.",
        "",
        "| measure | value | target |",
        "| --- | ---: | ---: |",
        f"| launch to interactive window, median of {len(launches)} | {launch_median:.2f} s | "
        f"< {LAUNCH_TARGET_S:.0f} s |",
        f"| event-loop lateness p50 | {latency['p50_ms']:.1f} ms | |",
        f"| event-loop lateness p99 | {latency['p99_ms']:.1f} ms | < {P99_TARGET_MS:.0f} ms |",
        f"| event-loop lateness max | {latency['max_ms']:.1f} ms | |",
        f"| time to the first generated item ({_start_words(args.cold)}) | {_seconds(latency)} | |",
        f"| different steps shown before it | {latency['steps_before_first_item']} | |",
        "",
        f"Launches (s): {', '.join(f'{s:.2f}' for s in seconds)}; model "
        f"libraries imported at start: {', '.join(models)}. Latency: {latency['ticks']} ticks "
        f"of a {TICK_MS} ms timer while the app generated {latency['items']} of {args.n} "
        f"MCQ items from `resources/sample_passage.txt` ({args.candidates} candidate(s) per "
        f"fact, ranked; {latency['generation_s']:.0f} s, models loaded cold) and scored them "
        f"with the live metrics ({latency['scoring_s']:.0f} s). After it, the window's process "
        f"held {latency['window_rss_mib']:.0f} MiB and had imported "
        f"{', '.join(latency['model_libraries_in_window']) or 'no model library'}; the model "
        f"host held {latency['host_memory_mib'].get('rss_mib', 0):.0f} MiB.",
        "",
        *timeline_lines(latency),
        *close_table(closes),
    ]
    text = "\n".join(md)
    write_results("gui", data, text)
    print(text)


def _start_words(cold: bool) -> str:
    return "first start, nothing cached" if cold else "models cold"


def timeline_lines(latency: dict[str, Any]) -> list[str]:
    """The steps shown before the first item, each with when it began."""
    rows = latency.get("timeline") or []
    if not rows:
        return []
    lines = ["| s after Generate | step shown |", "| ---: | --- |"]
    lines += [f"| {r['s']:.1f} | {r['step']} |" for r in rows]
    return [*lines, ""]


def write_latency_results(latency: dict[str, Any], args: argparse.Namespace) -> None:
    info = machine()
    command = (
        f".venv/bin/python bench/gui.py --only latency --n {args.n} --candidates "
        f"{args.candidates} --threads {args.threads} --profile {args.profile}"
        + (" --cold" if args.cold else "")
    )
    cold = latency.get("cold") or {}
    text = "\n".join(
        [
            "## Desktop app: the first generation (`bench/gui.py --only latency`)",
            "",
            f"Command: `{command}` at revision {git_revision()}, {info['date']}; "
            f"{info['cpu']}, {info['logical_cpus']} logical CPUs; Qt offscreen.",
            "",
            f"Time to the first generated item ({_start_words(args.cold)}): "
            f"{_seconds(latency)}; all {latency['items']} of {args.n}: "
            f"{latency['generation_s']:.0f} s."
            + (
                f" Nothing cached: {cold.get('files', 0)} model files, "
                f"{cold.get('dropped_mib', 0):.0f} MiB dropped from the file cache."
                if args.cold
                else ""
            ),
            "",
            *timeline_lines(latency),
        ]
    )
    write_results(
        "gui",
        {"machine": info, "command": command, "revision": git_revision(), "latency": latency},
        text,
        section="gui-latency",
    )
    print(text)


def _seconds(latency: dict[str, Any]) -> str:
    value = latency.get("first_item_s")
    return "no item" if value is None else f"{value:.0f} s"


def close_table(closes: list[dict[str, Any]]) -> list[str]:
    if not closes:
        return []
    worst = max(r["close_s"] for r in closes)
    rows = [
        f"Closing the window while a generation runs ({len(closes)} run(s)): the window is "
        f"gone after at most {worst:.3f} s (target < {CLOSE_TARGET_S:.0f} s); the job then "
        "ends in the background.",
        "",
        "| run | model at work | close (s) | job ended after (s) | outcome | items kept | "
        "bank check |",
        "| ---: | --- | ---: | ---: | --- | ---: | --- |",
    ]
    for k, r in enumerate(closes, 1):
        rows.append(
            f"| {k} | {'yes' if r['busy_when_closed'] else 'no (job over)'} | "
            f"{r['close_s']:.3f} | {r['job_end_after_close_s']:.1f} | {r['outcome']} | "
            f"{r['items_kept']} | {'ok' if not r['bank_problems'] else r['bank_problems']} |"
        )
    rows.append("")
    return rows


def write_close_results(closes: list[dict[str, Any]], args: argparse.Namespace) -> None:
    info = machine()
    command = (
        f".venv/bin/python bench/gui.py --only close --close-runs {args.close_runs} "
        f"--close-after {args.close_after} --threads {args.threads}"
    )
    data = {
        "machine": info,
        "command": command,
        "revision": git_revision(),
        "close_during_job": closes,
        "targets": {"close_s": CLOSE_TARGET_S},
    }
    text = "\n".join(
        [
            "## Desktop app: closing during a job (`bench/gui.py --only close`)",
            "",
            f"Command: `{command}` at revision {data['revision']}, {info['date']}; "
            f"{info['cpu']}, {info['logical_cpus']} logical CPUs; Qt offscreen.",
            "",
            *close_table(closes),
        ]
    )
    write_results("gui", data, text, section="gui-close")
    print(text)


if __name__ == "__main__":
    main()
