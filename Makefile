# Two commands for a fresh machine: `make verify` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.sinpe-installed

.PHONY: verify test bench golden clean

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	# torch first and pinned: a CPU wheel lies on disk; anything newer pulls a CUDA build.
	$(BIN)/pip install -q -c requirements.lock torch==2.13.0
	$(BIN)/pip install -q -r requirements.lock
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

verify: $(STAMP)
	$(BIN)/sinpe verify

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

golden: $(STAMP)
	$(BIN)/sinpe golden

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
