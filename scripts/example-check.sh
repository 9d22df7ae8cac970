#!/usr/bin/env bash
# Builds and runs each project of examples/ against the package as it would be published: packs the
# tarball (after `npm run build`), installs it with the example's dependencies into a temporary
# folder (from npm's cache when it has them: --prefer-offline), builds the example with `tsc` (which
# type-checks it against the shipped declarations, skipLibCheck off, and fails on any error, as
# `npm run check`, its `tsc --noEmit`, would: one compile instead of two) and runs it.
# - node-export starts the sandbox with startSandbox(), reads with collection(), exports with
#   exportCollection();
# - postgres-export mirrors an entity's invoices into PostgreSQL, the API version pinned, and runs
#   with DATABASE_URL naming a throwaway server (scripts/with-postgres.mjs).
# Run by `npm run example` (and so by CI); `npm run example -- node-export` runs one.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

npm pack --silent --ignore-scripts --pack-destination "$tmp" >"$tmp/pack.out"
tarball="$tmp/$(tail -n 1 "$tmp/pack.out")"

examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(node-export postgres-export)
for example in "${examples[@]}"; do
  echo "example: $example"
  cp -R "examples/$example" "$tmp/$example"
  cd "$tmp/$example"
  npm install --prefer-offline --no-audit --no-fund --ignore-scripts "$tarball" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log" >&2
    exit 1
  }
  npm run --silent build
  if [ "$example" = postgres-export ]; then
    node "$root/scripts/with-postgres.mjs" npm start --silent
  else
    npm start --silent
  fi
  cd "$root"
done
