#!/usr/bin/env bash
# macOS: "dist/LTM Desktop.app" (the spec's BUNDLE step) -> dist/LTM-Desktop-<version>-macos-<arch>.dmg.
# Untested here (the project's machines are Linux); the CI workflow's macos job runs it.
# Unsigned by default: Gatekeeper then asks people to right-click > Open the first time. With an Apple Developer ID
# set MACOS_SIGN_IDENTITY="Developer ID Application: ..." (and NOTARY_PROFILE, a `xcrun notarytool store-credentials`
# profile) to sign every Mach-O file (including the Postgres binaries, which PyInstaller treats as data), then the
# app, and to notarize and staple the image.
set -euo pipefail
app=${1:?usage: make-dmg.sh "dist/LTM Desktop.app"}
version=$("$app/Contents/MacOS/ltm-desktop" --version | awk '{print $2}')
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$app" "$stage/"
ln -s /Applications "$stage/Applications"
if [[ -n ${MACOS_SIGN_IDENTITY:-} ]]; then
  entitlements="$(dirname "$0")/entitlements.plist"
  find "$stage/LTM Desktop.app/Contents" -type f -print0 | while IFS= read -r -d '' f; do
    if file -b "$f" | grep -q 'Mach-O'; then
      codesign --force --options runtime --timestamp --entitlements "$entitlements" --sign "$MACOS_SIGN_IDENTITY" "$f"
    fi
  done
  codesign --force --options runtime --timestamp --entitlements "$entitlements" --sign "$MACOS_SIGN_IDENTITY" \
    "$stage/LTM Desktop.app"
fi
out="dist/LTM-Desktop-$version-macos-$(uname -m).dmg"
hdiutil create -volname "LTM Desktop" -srcfolder "$stage" -ov -format UDZO "$out"
if [[ -n ${NOTARY_PROFILE:-} ]]; then
  xcrun notarytool submit "$out" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "$out"
fi
echo "$out"
