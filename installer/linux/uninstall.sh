#!/usr/bin/env bash
# Removes what install.sh added (menu entry, autostart, icon, ~/.local/bin/ltm). Your data stays in
# ~/.local/share/ltm-desktop (delete that folder yourself to remove the index and memories), and this folder stays.
set -euo pipefail
data=${XDG_DATA_HOME:-$HOME/.local/share}
config=${XDG_CONFIG_HOME:-$HOME/.config}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
rm -f "$data/applications/ltm-desktop.desktop" "$config/autostart/ltm-desktop.desktop" \
  "$data/icons/hicolor/256x256/apps/ltm-desktop.png" "$data/icons/hicolor/scalable/apps/ltm-desktop.svg"
# Only our own link: a `ltm` from somewhere else is left alone.
link=$HOME/.local/bin/ltm
if [[ -L $link && $(readlink "$link") == "$here/ltm-desktop" ]]; then rm -f "$link"; fi
echo "removed the menu entry, autostart entry, icon and command link; to stop the app, use Quit in its tray menu"
