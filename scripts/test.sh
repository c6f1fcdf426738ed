#!/usr/bin/env bash
# `npm test`: build, then the vitest suite with lint and type-check beside it instead of before it. The suite's
# workers spend a third of their time waiting on Claude Code sessions and paced simulators (about 1.3 of 2 cores
# busy); the checks' ~100 s of CPU run in that gap, at the lowest priority so the suite's own processes never wait
# for them (BENCHMARKS.md part 11). The checks print after the suite, and any of the three failing fails the
# command. Arguments go to vitest.
set -u
cd "$(dirname "$0")/.."
npm run -s build || exit 1
logs="$(mktemp -d "${TMPDIR:-/tmp}/localagents-checks-XXXXXX")"
nice -n 19 npm run -s lint >"$logs/lint" 2>&1 &
lint=$!
nice -n 19 npm run -s typecheck >"$logs/typecheck" 2>&1 &
types=$!
# Interrupted, the checks still running end with the suite (background jobs of a script ignore Ctrl-C); `jobs -p`
# names only those, never a PID bash has already reaped.
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$logs"' EXIT

node_modules/.bin/vitest run "$@"
tests=$?

# Waits for a check; prints its output only if it failed.
report() {
  if wait "$2"; then
    echo "npm run $1: passed"
  else
    echo "npm run $1 failed:" >&2
    cat "$logs/$1" >&2
    return 1
  fi
}
report lint "$lint"
linted=$?
report typecheck "$types"
typed=$?
[ "$tests" -eq 0 ] && [ "$linted" -eq 0 ] && [ "$typed" -eq 0 ]
