#!/usr/bin/env bash
# `make installer`: the one-folder bundle dist/ltm-desktop (PyInstaller), then this OS's package:
# Linux -> dist/ltm-desktop-<version>-linux-<arch>.tar.gz, macOS -> dist/LTM-Desktop-<version>.dmg.
# (Windows: CI runs PyInstaller and Inno Setup directly; see .github/workflows/build.yml.)
# build/pyinstaller is kept between runs so a rebuild only redoes what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
export LTM_MODELS_DIR=${LTM_MODELS_DIR:-$PWD/.models}
"$py" -m PyInstaller --noconfirm --log-level WARN --workpath build/pyinstaller --distpath dist installer/ltm-desktop.spec
case "$(uname -s)" in
  Linux) bash installer/linux/package.sh dist/ltm-desktop ;;
  Darwin) bash installer/macos/make-dmg.sh "dist/LTM Desktop.app" ;;
esac
