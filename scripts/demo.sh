#!/usr/bin/env bash
# The main job on the embedded local default: a project, a few memories, an update, a read.
# Everything lives in two temporary directories (the project, and a GRAPHIT_HOME holding its
# tables) that are removed on exit, however the script ends; your ~/.graphit is not touched.
set -euo pipefail
project=$(mktemp -d "${TMPDIR:-/tmp}/graphit-demo.XXXXXX")
home=$(mktemp -d "${TMPDIR:-/tmp}/graphit-demo-home.XXXXXX")
trap 'rm -rf "$project" "$home"' EXIT
export GRAPHIT_HOME="$home"
cd "$project"
say() { printf '\n== %s\n' "$*" >&2; }

say "graphit init  (project in $project, tables in $home)"
graphit init
say "write four memories"
uv_id=$(graphit memory upsert -f json -t convention --tag python --tag tooling \
  --title "Install with uv" --body "We install Python packages with uv, not pip." \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
graphit memory upsert -f table -t fact --mandatory --title "Project is in development" \
  --body "The project is in development, so changes do not require backward compatibility or data migrations."
cat <<'MD' | graphit memory upsert -f table -
---
type: "convention"
tags: ["go", "testing"]
important: true
---

# Prefer table-driven Go tests

## What
Use table-driven cases for related Go scenarios.

## Why
The shared setup makes edge cases visible and keeps assertions consistent.
MD
graphit memory upsert -f table -t procedure --important --title "Updating dependencies" \
  --body "Dependencies are pinned in uv.lock: update them with uv lock --upgrade, then run the tests."
say "update one (the old text becomes an archived revision)"
graphit memory upsert -f table --id "$uv_id" \
  --body "We install Python packages with uv (never pip): lockfile-driven and fast."
say "list, in canonical order"
cat >&2 <<'TXT'
Every listing and every search shows memories in the same canonical order: mandatory first,
then important, then the rest, newest first inside each group (FLAGS: M = mandatory,
I = important). A search picks its hits by relevance, then shows them in that order, so the
best-scoring hit can come last: SCORE is match metadata, never the sort key.
TXT
graphit memory list -f table
say "search: each write embedded its row, so search is hybrid from the first memory"
graphit memory search "table driven tests" -f table
say "the same kind of question in other words (and in Spanish): found by meaning"
echo "(canonical order again: a mandatory or important hit is listed above a better-scoring normal one)" >&2
graphit memory search "how do we install dependencies" -f table
graphit memory search "¿cómo instalamos las dependencias?" -f table
say "history of $uv_id"
graphit memory history "$uv_id" -f table
say "source $uv_id  (Markdown you can edit and upsert back)"
graphit memory source "$uv_id"
say "mandatory memories, in full"
graphit memory mandatory
say "done; removing $project and $home"
