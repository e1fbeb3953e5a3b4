#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages LTM Desktop needs (tesseract, Qt's xcb libraries) when it can;
# otherwise prints the exact command. On macOS it points at Homebrew.
set -euo pipefail
if [[ "$(uname)" == "Darwin" ]]; then
  command -v tesseract >/dev/null || echo "tesseract is missing: brew install tesseract" >&2
  exit 0
fi
command -v dpkg >/dev/null || { echo "not a Debian/Ubuntu system: install tesseract and Qt's xcb libraries with your package manager" >&2; exit 0; }
missing=()
for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
((${#missing[@]})) || exit 0
if [[ $(id -u) -eq 0 ]]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo"; else
  echo "missing system packages; run: sudo apt-get install -y ${missing[*]}" >&2; exit 0
fi
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
