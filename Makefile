# Two commands for a fresh machine: `make verify` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.sinpe-installed

.PHONY: verify test test-fast lint bench golden clean survey FORCE

DEPS   := $(VENV)/.sinpe-deps
# the package's modules: the strict editable install links each one, so adding or removing one re-runs it
FILES  := $(VENV)/.sinpe-files
TREE   := build/__editable__.sinpe-$(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)-py3-none-any

$(DEPS): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	# torch first and pinned: a CPU wheel lies on disk; anything newer pulls a CUDA build.
	$(BIN)/pip install -q -c requirements.lock torch==2.13.0
	$(BIN)/pip install -q -r requirements.lock
	touch $(DEPS)

$(FILES): FORCE
	@mkdir -p $(VENV)
	@find spec proofs reference -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort > $(FILES).new
	@cmp -s $(FILES).new $(FILES) && rm $(FILES).new || mv $(FILES).new $(FILES)

# strict editable mode: sinpe is a tree of links under build/ (named on sys.path by a .pth file), a real folder
# `sinpe/` that mypy, import-linter and IDEs follow; the sources stay where they are
$(STAMP): $(DEPS) $(FILES)
	rm -rf $(TREE)
	$(BIN)/pip install -q --no-deps --no-build-isolation -e . --config-settings editable_mode=strict
	# bytecode for the linked sources, as pip writes it for installed packages: every child sinpe starts (an
	# isolated callable, a test's subprocess) then skips compiling them, even under PYTHONDONTWRITEBYTECODE
	$(BIN)/python -m compileall -q $(TREE)
	touch $(STAMP)

FORCE:

verify: $(STAMP)
	$(BIN)/sinpe verify

# pytest-xdist: one worker per core (-n auto); the tests sharing a module-scoped fixture stay on one worker (loadgroup,
# tests/conftest.py); `make lint`'s steps run inside, as tests (conftest.lint_run), on one worker while the other
# runs the rest; the 25 slowest tests and the sum of all test durations are printed at the end
test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadgroup --durations=25

# the fast subset for iteration: every test but those marked slow (tests/conftest.py SLOW_MODULES)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadgroup -m "not slow"

# the static checks, as configured in pyproject.toml (the tools pinned in requirements.lock; mypy once over the
# package and once over benchmarks/, which `make test` does not run): `make test` runs the same steps as tests
# (tests/helpers.LINT_STEPS), so a lint, type or layering error fails it (and CI); .pre-commit-config.yaml runs the same
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/mypy benchmarks
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

golden: $(STAMP)
	$(BIN)/sinpe golden

# The conformance survey of real libraries (survey/): its own pinned environment, run on demand, never by `make test`.
SVENV  := .venv-survey
SBIN   := $(SVENV)/bin
SSTAMP := $(SVENV)/.sinpe-survey-installed

$(SSTAMP): pyproject.toml requirements.lock survey/requirements.lock
	$(PYTHON) -m venv $(SVENV)
	$(SBIN)/pip install -q -c survey/requirements.lock torch==2.13.0
	# every package is pinned in the lock, so --no-deps installs exactly it (no tensorflow, no triton)
	$(SBIN)/pip install -q --no-deps -r survey/requirements.lock
	$(SBIN)/pip install -q --no-deps --no-build-isolation -e .
	touch $(SSTAMP)

survey: $(SSTAMP)
	KERAS_BACKEND=torch $(SBIN)/python survey/run.py
	KERAS_BACKEND=torch $(SBIN)/python survey/apply_run.py

clean:
	rm -rf $(VENV) $(SVENV) build *.egg-info .pytest_cache
