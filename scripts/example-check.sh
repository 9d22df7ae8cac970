#!/usr/bin/env bash
# Builds and runs examples/node-export against the package as it would be published: packs the
# tarball (after `npm run build`), installs it with the example's dev dependencies into a
# temporary folder (from npm's cache when it has them: --prefer-offline), builds the example with
# `tsc` (which type-checks it against the shipped declarations, skipLibCheck off, and fails on any
# error, as `npm run check`, its `tsc --noEmit`, would: one compile instead of two) and runs it. The example
# starts the sandbox with startSandbox(), reads with collection(), exports with exportCollection().
# Run by `npm run example` (and so by CI).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

npm pack --silent --ignore-scripts --pack-destination "$tmp" >"$tmp/pack.out"
tarball="$tmp/$(tail -n 1 "$tmp/pack.out")"
cp -R examples/node-export "$tmp/example"
cd "$tmp/example"
npm install --prefer-offline --no-audit --no-fund --ignore-scripts "$tarball" >"$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log" >&2
  exit 1
}
npm run --silent build
npm start --silent
