#!/usr/bin/env bash
# vendor.sh: fetch the dashboard's one library, uPlot (MIT, ~50 KB, no
# dependencies), from the npm registry into static/vendor/, where the
# binary embeds it: the dashboard needs no network when it is served.
# Run it to change the version; commit what it writes.
set -euo pipefail
VERSION=1.6.32
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null && tar xzf "uplot-$VERSION.tgz")
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" static/vendor/
cp "$tmp/package/LICENSE" static/vendor/uPlot.LICENSE
echo "uPlot $VERSION" > static/vendor/VERSION
