#!/usr/bin/env bash
# make test-stress: the process-level suite and the engine's unit tests run
# again and again while every core is kept busy, to find an order of events
# that a test does not control before a newcomer's cold `make test` does.
# Prints go test's own lines; exits non-zero on the first failing pass.
#
#   integration/stress.sh TANDEM_BIN
#
# STRESS_SUITE (5): passes of the whole integration package.
# STRESS_OTHER_UID (20): passes of the tests that run copies of the
#   binaries as other uids, and of the done-directory faults.
# STRESS_ENGINE (30): passes of supervisor/... at -cpu 1,2,4.
set -euo pipefail
bin=${1:?usage: integration/stress.sh TANDEM_BIN}
cd "$(dirname "$0")/.."
suite=${STRESS_SUITE:-5} other_uid=${STRESS_OTHER_UID:-20} engine=${STRESS_ENGINE:-30}
other_uid_tests='Fault|Lifeline|NeedsDifferentUsers|PeersOtherUID|InotifyUnavailable'

# One spinning process per core, at the tests' own priority, ended with
# this script whatever happens.
load=()
for _ in $(seq "$(nproc)"); do
  (while :; do :; done) &
  load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null || true' EXIT

race=()
if command -v cc >/dev/null 2>&1; then
  race=(-race)
  export CGO_ENABLED=1 GORACE=atexit_sleep_ms=0
fi
run() {
  local started=$SECONDS
  echo "== go test $*  (load: ${#load[@]} busy cores)"
  TANDEM_BIN=$bin go test -trimpath -tags urfave_cli_no_docs "${race[@]}" "$@"
  echo "== $((SECONDS - started)) s"
}
run -count="$suite" -timeout 60m ./integration/
run -count="$other_uid" -timeout 60m -run "$other_uid_tests" ./integration/
run -count="$engine" -cpu 1,2,4 -timeout 60m ./supervisor/...
