#!/usr/bin/env bash
# Checks the package as `npm publish` would ship it.
#   bash scripts/pack-check.sh --contents   `npm pack --dry-run` (after a build): the tarball holds
#                                           LICENSE, README, CHANGELOG, bin/, dist/ and every
#                                           guide in docs/ the README links to, and no
#                                           src/, test/ or scripts/. Offline; run by
#                                           `npm run lint:package` (and so by CI).
#   bash scripts/pack-check.sh              the same, then packs the tarball and installs it
#                                           globally into a temporary prefix, as a new user would
#                                           from a clean folder, and checks that no install script
#                                           ran and that `collections --version` and `--help`
#                                           work. This needs the npm registry for the
#                                           dependencies: a manual release step (README, "Install").
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

npm pack --dry-run --json --ignore-scripts 2>/dev/null >"$tmp/dry-run.json"
node -e '
  const [pack] = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const files = new Set(pack.files.map((f) => f.path));
  // The README links its guides in docs/: each one it links must ship with it.
  const readme = require("node:fs").readFileSync("README.md", "utf8");
  const guides = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]);
  const required = ["LICENSE", "README.md", "CHANGELOG.md", "package.json", "bin/collections.js", "dist/cli.js", "dist/index.js", "dist/index.d.ts", ...new Set(guides)];
  const missing = required.filter((f) => !files.has(f));
  const stray = [...files].filter((f) => /^(src|test|scripts)\//.test(f));
  if (missing.length > 0 || stray.length > 0) {
    console.error(`pack-check: missing ${missing.join(", ") || "nothing"}; should not ship ${stray.join(", ") || "nothing"}`);
    process.exit(1);
  }
  console.log(`pack-check: ${pack.filename} would hold ${pack.entryCount} files (${pack.size} bytes packed, ${pack.unpackedSize} unpacked)`);
' "$tmp/dry-run.json"
[ "${1:-}" = "--contents" ] && exit 0

npm pack --silent --pack-destination "$tmp" >"$tmp/pack.out"
tarball="$tmp/$(tail -n 1 "$tmp/pack.out")"
(cd "$tmp" && npm install -g --prefix "$tmp/global" --prefer-offline --no-audit --no-fund "$tarball") >"$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log" >&2
  exit 1
}
if grep -qiE 'install script|prepare|postinstall|preinstall' "$tmp/install.log"; then
  cat "$tmp/install.log" >&2
  echo "pack-check: the install ran or warned about an install script" >&2
  exit 1
fi
version="$("$tmp/global/bin/collections" --version)"
[ "$version" = "$(node -p 'require("./package.json").version')" ] || {
  echo "pack-check: --version printed '$version'" >&2
  exit 1
}
"$tmp/global/bin/collections" --help >"$tmp/help.out"
grep -q '^Usage: collections' "$tmp/help.out" || {
  echo "pack-check: --help printed no usage line" >&2
  exit 1
}
echo "pack-check: $(basename "$tarball") installs globally with no install script and runs: collections $version"
