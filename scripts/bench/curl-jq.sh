#!/bin/sh
# The "curl + jq shell loop" contender of `npm run bench`: what a shell user writes. One curl per page
# (a new connection each time), jq -c for the items, and a second jq for hydra:next.
# Usage: curl-jq.sh URL API_KEY OUT_FILE
set -eu
url=$1
key=$2
out=$3
origin=$(printf '%s' "$url" | sed -E 's#^(https?://[^/]+).*#\1#')
page=$(mktemp)
trap 'rm -f "$page"' EXIT
: > "$out"
while [ -n "$url" ]; do
  curl -sS --fail -H 'Accept: application/ld+json' -H "X-Api-Key: $key" -o "$page" "$url"
  jq -c '(.["hydra:member"] // .member)[]' "$page" >> "$out"
  next=$(jq -r '(.["hydra:view"] // .view // {}) | (.["hydra:next"] // .next // empty)' "$page")
  case "$next" in
    '') url='' ;;
    http*) url=$next ;;
    *) url="$origin$next" ;;
  esac
done
