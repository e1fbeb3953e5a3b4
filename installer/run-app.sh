#!/usr/bin/env bash
# `make run`: the tray app when there is a display, the headless service otherwise (and it says which).
set -euo pipefail
ltm=$1
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" || "$(uname)" == "Darwin" ]] && "$ltm" desktop --help >/dev/null 2>&1; then
  exec "$ltm" desktop
fi
echo "no display (or no tray app yet): starting the headless service: ltm run --headless" >&2
exec "$ltm" run --headless
