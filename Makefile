# One command to set up and run, one to set up and test. Both create .venv in the repo,
# installing only what they need, at the versions pinned in constraints.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONSTRAINTS := constraints.txt
NEW_VENV = $(PYTHON) -m venv
INSTALL = $(BIN)/python -m pip install --quiet --constraint $(CONSTRAINTS)
# What identifies the Python that makes the venv: its version and its real path.
PYTHON_ID = import os, sys; print(sys.version.split()[0], os.path.realpath(sys.executable))

.PHONY: run test test-fast lint bench figures constraints clean pcsc FORCE

# The venv itself. It remembers the Python that made it (python-id); a venv made by
# another Python (`make run PYTHON=python3.10` once), or whose Python no longer runs, is
# made again from scratch.
$(VENV)/python-id: FORCE
	@id="$$($(PYTHON) -c '$(PYTHON_ID)')" || { echo "no Python at '$(PYTHON)'" >&2; exit 1; }; \
	if [ "$$(cat $@ 2>/dev/null)" != "$$id" ] || ! $(BIN)/python -c '' 2>/dev/null; then \
		echo "making $(VENV) with Python $$id"; \
		rm -rf $(VENV) && $(NEW_VENV) $(VENV) && $(INSTALL) pip && echo "$$id" > $@; \
	fi

# Runtime dependencies only (pyproject.toml's dependencies), the project installed editable.
$(VENV)/runtime-installed: $(VENV)/python-id pyproject.toml $(CONSTRAINTS)
	$(INSTALL) -e .
	touch $@

# Plus the test tools (the `test` extra) and the benchmarks' comparisons (`bench`).
$(VENV)/test-installed: $(VENV)/runtime-installed | pcsc
	$(INSTALL) -e '.[test]'
	touch $@

# PC/SC card readers' pyscard (the `pcsc` extra) builds from source with swig and pcsc-lite's
# headers (Debian: swig, libpcsclite-dev): installed where they are; elsewhere the PC/SC
# tests are skipped and say why. Looked at again by every make until it is installed.
pcsc: $(VENV)/runtime-installed
	@if [ -e $(VENV)/pcsc-installed ]; then :; \
	elif command -v swig >/dev/null && [ -e /usr/include/PCSC/winscard.h ]; then \
		$(INSTALL) -e '.[pcsc]' && touch $(VENV)/pcsc-installed; \
	else echo "pyscard (PC/SC readers) not installed: swig or libpcsclite-dev is missing"; fi

$(VENV)/bench-installed: $(VENV)/runtime-installed | pcsc
	$(INSTALL) -e '.[bench]'
	touch $@

# The console's port: `make run PORT=8081` when 8080 is taken.
PORT ?= 8080

run: $(VENV)/runtime-installed
	$(BIN)/luck-table sim --hands 5 --speed 4 --console 127.0.0.1:$(PORT)

# The suite's workers (pytest-xdist): one a core of the 2-core machines it is kept fast on.
TEST_WORKERS ?= 2

test: lint
	$(BIN)/pytest -n $(TEST_WORKERS) --durations=25

# The inner loop, under a minute: the tests not marked slow (no processes, browsers,
# servers or PostgreSQL; pyproject.toml says what slow means), the property tests at the
# `fast` hypothesis profile (tests/hypothesis_profiles.py). No lint: `make lint` for that.
test-fast: $(VENV)/test-installed
	$(BIN)/pytest -n $(TEST_WORKERS) -m "not slow" --hypothesis-profile=fast

lint: $(VENV)/test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# Every benchmark with the options its figures are recorded with, each writing its JSON to
# bench/results/ (bench/figures.py; it fails if any benchmark did, after running the rest).
# `make figures` also writes docs/performance.md's figures from that JSON. The test tools
# too: bench/table.py's part (d) runs the suite's recovery test.
bench: $(VENV)/bench-installed $(VENV)/test-installed
	$(BIN)/python bench/figures.py run

figures: bench
	$(BIN)/python bench/figures.py write

# Pin again: the newest versions pyproject.toml allows, resolved in a scratch venv, every
# package it installed written to constraints.txt. Run `make test` after, then commit.
constraints:
	rm -rf $(VENV)-constraints
	$(PYTHON) -m venv $(VENV)-constraints
	$(VENV)-constraints/bin/python -m pip install --quiet --upgrade pip
	$(VENV)-constraints/bin/python -m pip install --quiet -e '.[test,bench,pcsc]'
	{ echo "# Versions every install uses (pip --constraint), written by 'make constraints'."; \
	  $(VENV)-constraints/bin/python -m pip freeze --all --exclude-editable; } > $(CONSTRAINTS)
	rm -rf $(VENV)-constraints

clean:
	rm -rf $(VENV) build *.egg-info
