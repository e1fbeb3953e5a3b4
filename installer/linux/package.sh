#!/usr/bin/env bash
# Adds the desktop integration to the bundle and packs it: dist/ltm-desktop-<version>-linux-<arch>.tar.gz.
# The tarball unpacks to one folder that runs from wherever it is put; its install.sh registers that place.
set -euo pipefail
bundle=${1:?usage: package.sh dist/ltm-desktop}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$("$bundle/ltm-desktop" --version | awk '{print $2}')
install -m 755 "$here/install.sh" "$here/uninstall.sh" "$bundle/"
mkdir -p "$bundle/share"
install -m 644 "$here/ltm-desktop.desktop" "$here/ltm-desktop-autostart.desktop" "$bundle/share/"
install -m 644 "$root/resources/icons/png/app-256.png" "$bundle/share/ltm-desktop.png"
install -m 644 "$root/resources/icons/app.svg" "$bundle/share/ltm-desktop.svg"
out="$(dirname "$bundle")/ltm-desktop-$version-linux-$(uname -m).tar.gz"
tar -C "$(dirname "$bundle")" -cf - "$(basename "$bundle")" | gzip -6 >"$out.part"
mv "$out.part" "$out"
echo "$out"
