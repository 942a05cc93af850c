#!/usr/bin/env bash
# The main job on the embedded local default: a project, a few memories, an update, a read.
# Tables live under ~/.graphit/memory (or $GRAPHIT_HOME); the project directory is temporary.
set -euo pipefail
project=$(mktemp -d "${TMPDIR:-/tmp}/graphit-demo.XXXXXX")
cd "$project"
echo "== graphit init  (project in $project)" >&2
graphit init
echo "== write three memories" >&2
uv_id=$(graphit memory upsert -f json -t convention --tag python --tag tooling \
  --title "Install with uv" --body "We install Python packages with uv, not pip." \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
graphit memory upsert -t fact --mandatory --title "Project is in development" \
  --body "The project is in development, so changes do not require backward compatibility or data migrations."
cat <<'MD' | graphit memory upsert -
---
title: "Prefer table-driven Go tests"
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
echo "== update one (the old text becomes an archived revision)" >&2
graphit memory upsert --id "$uv_id" --body "We install Python packages with uv (never pip): lockfile-driven and fast."
echo "== list, in canonical order" >&2
graphit memory list -f table
echo "== search, lexical first (no vectors yet), then hybrid after embedding" >&2
graphit memory search "table driven tests" -f table
graphit memory embed
graphit memory search "how do we install dependencies" -f table
echo "== history of $uv_id" >&2
graphit memory history "$uv_id" -f table
echo "== source $uv_id" >&2
graphit memory source "$uv_id"
echo "== mandatory memories, in full" >&2
graphit memory mandatory
