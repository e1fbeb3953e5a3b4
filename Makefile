# Two commands on a fresh machine: `make run` (set up and start the app) and `make test` (set up and run the tests).
# Both are idempotent: they create .venv, install the package, install missing system packages with apt
# (as root or with sudo; otherwise they print the command), and provision the offline model pack.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
LTM := $(VENV)/bin/ltm
MODELS := $(CURDIR)/.models
SYSTEM_PACKAGES := tesseract-ocr tesseract-ocr-eng libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 \
	libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libegl1 libgl1 \
	libfontconfig1 libdbus-1-3

.PHONY: run test system-deps venv models installer clean

$(VENV)/.stamp-install: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.stamp-install

system-deps:
	@bash installer/system-deps.sh $(SYSTEM_PACKAGES)

models: venv
	LTM_MODELS_DIR=$(MODELS) $(LTM) models fetch

run: system-deps venv
	$(LTM) models fetch
	@bash installer/run-app.sh $(LTM)

test: system-deps venv models
	LTM_MODELS_DIR=$(MODELS) QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

# The bundle (dist/ltm-desktop), this OS's package, then the smoke test of that package (docs/install.md).
installer: venv models
	$(PY) -m pip install --quiet -e '.[build]'
	LTM_MODELS_DIR=$(MODELS) bash installer/build.sh
	$(PY) installer/smoke_test.py

clean:
	rm -rf $(VENV) build dist
