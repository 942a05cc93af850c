#!/usr/bin/env bash
# Keep CORES cores busy while process PID runs, and never longer than MAX_SECONDS: a bounded load
# for CI's busy tier (.ci/run), so a test whose verdict depends on an idle machine fails there.
#   usage: scripts/busy.sh PID [CORES=2] [MAX_SECONDS=2700]
# Each busy loop is a shell spinning on `kill -0 PID` (a builtin: no process is started); it ends
# when PID has exited or MAX_SECONDS have passed, whichever comes first.
set -euo pipefail
pid=${1:?usage: scripts/busy.sh PID [CORES] [MAX_SECONDS]}
cores=${2:-2}
max=${3:-2700}
for _ in $(seq "$cores"); do
  (
    end=$((SECONDS + max))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do :; done
  ) &
done
wait
