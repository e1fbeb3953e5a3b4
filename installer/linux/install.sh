#!/usr/bin/env bash
# Registers this LTM Desktop folder with your desktop, for you alone (no root needed). Run it again after moving
# the folder, then `ltm connect CLIENT` for each connected AI app (or open the app: it notices moved paths).
#   ~/.local/share/applications/ltm-desktop.desktop    the app menu entry
#   ~/.config/autostart/ltm-desktop.desktop            start at login (leave out with --no-autostart)
#   ~/.local/share/icons/hicolor/.../ltm-desktop.*     the icon
#   ~/.local/bin/ltm                                   the command line (leave out with --no-link)
# Nothing is written inside this folder: it may live on a read-only disk. All data goes to ~/.local/share/ltm-desktop
# (or LTM_HOME).
set -euo pipefail
autostart=1 link=1
for arg in "$@"; do
  case $arg in
    --no-autostart) autostart=0 ;;
    --no-link) link=0 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
exe="$here/ltm-desktop"
[[ -x $exe ]] || { echo "install.sh: $exe is missing; unpack the whole tarball first" >&2; exit 1; }
data=${XDG_DATA_HOME:-$HOME/.local/share}
config=${XDG_CONFIG_HOME:-$HOME/.config}

# Desktop entries split Exec on spaces and give \ " ` $ % a meaning: quote the path and escape those
# (a backslash is escaped twice, once for the quoting and once for the string value; % becomes %%).
quoted=$(printf '%s' "$exe" | sed -e 's/\\/\\\\\\\\/g' -e 's/["`$]/\\\\&/g' -e 's/%/%%/g')
# awk reads the value from the environment, so nothing in the path is taken as a pattern or an escape.
render() {
  EXEC="\"$quoted\"" awk '{ i = index($0, "@EXEC@")
    if (i) $0 = substr($0, 1, i - 1) ENVIRON["EXEC"] substr($0, i + 6)
    print }' "$here/share/$1"
}

mkdir -p "$data/applications" "$data/icons/hicolor/256x256/apps" "$data/icons/hicolor/scalable/apps"
install -m 644 "$here/share/ltm-desktop.png" "$data/icons/hicolor/256x256/apps/ltm-desktop.png"
install -m 644 "$here/share/ltm-desktop.svg" "$data/icons/hicolor/scalable/apps/ltm-desktop.svg"
render ltm-desktop.desktop >"$data/applications/ltm-desktop.desktop"
echo "menu entry: $data/applications/ltm-desktop.desktop"
if ((autostart)); then
  mkdir -p "$config/autostart"
  render ltm-desktop-autostart.desktop >"$config/autostart/ltm-desktop.desktop"
  echo "autostart:  $config/autostart/ltm-desktop.desktop"
else
  rm -f "$config/autostart/ltm-desktop.desktop"
fi
if ((link)); then
  mkdir -p "$HOME/.local/bin"
  ln -sfn "$exe" "$HOME/.local/bin/ltm"
  echo "command:    $HOME/.local/bin/ltm -> $exe"
  case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) echo "  (add ~/.local/bin to your PATH to type \`ltm\`)" ;; esac
fi
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" 2>/dev/null || true
command -v tesseract >/dev/null || echo "note: tesseract is not installed, so scanned pages wait for OCR:" \
  "sudo apt install tesseract-ocr (Debian/Ubuntu), sudo dnf install tesseract (Fedora)"
echo "done: start LTM Desktop from your app menu, or run $exe"
