#!/usr/bin/env bash
# Plays a Job pod on this machine, without Kubernetes: a main container and a
# proxy sidecar, each under tandem, sharing a directory the way the two
# containers share an emptyDir. The main works for a second; the sidecar must
# stop the moment the main is done. Prints what happened and how fast, and
# exits non-zero when it did not behave.
#
#   usage: examples/demo.sh [path/to/tandem]     (make demo)
#
# Needs bash and coreutils only (no jq): tandem's JSON log lines are read
# with sed, and times are turned into numbers by GNU date.
set -euo pipefail

tandem=${1:-bin/tandem}
if [[ ! -x $tandem ]]; then
	echo "demo: $tandem is not an executable tandem; run \`make demo\`" >&2
	exit 2
fi
tandem=$(cd "$(dirname "$tandem")" && pwd)/$(basename "$tandem")

pod=$(mktemp -d "${TMPDIR:-/tmp}/tandem-demo.XXXXXX")
# On the way out (Ctrl-C included), stop any container still running, as
# pod deletion would: SIGTERM to tandem, which passes it on to its CMD.
cleanup() {
	local name
	for name in job proxy; do
		if [[ -e $pod/$name.pid && ! -e $pod/$name.code ]]; then
			kill -TERM "$(<"$pod/$name.pid")" 2>/dev/null || true
		fi
	done
	wait
	rm -rf "$pod"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
shared=$pod/shared # the emptyDir
mkdir "$shared"

# container NAME CMD...: run one "container" in the background. Its exit code
# and the moment it ended are recorded by a subshell that waits for it, so
# they do not depend on the order in which this script waits.
container() {
	local name=$1
	shift
	(
		code=0
		"$tandem" --log-format json "$@" >"$pod/$name.out" 2>"$pod/$name.log" &
		echo $! >"$pod/$name.pid"
		wait $! || code=$?
		date +%s%N >"$pod/$name.ended"
		echo "$code" >"$pod/$name.code"
	) &
}

echo "tandem demo: a Job pod in $pod"
echo "  job   (main)    tandem main    --done-file shared/done -- sh -c 'echo working; sleep 1; echo finished'"
echo "  proxy (sidecar) tandem sidecar --done-file shared/done -- sh -c 'echo listening; exec sleep 3600'"
echo

# Both containers start at once, as in a pod.
container proxy sidecar --name proxy --done-file "$shared/done" -- \
	sh -c 'echo listening; exec sleep 3600'
proxy_pid=$!
container job main --name job --done-file "$shared/done" -- \
	sh -c 'echo working; sleep 1; echo finished'
job_pid=$!

wait "$job_pid"
# The sidecar gets ten seconds to notice; a broken one is killed, not waited
# for (its CMD sleeps an hour).
for _ in $(seq 100); do
	[[ -e $pod/proxy.code ]] && break
	sleep 0.1
done
if [[ ! -e $pod/proxy.code ]]; then
	echo "demo: FAILED: the sidecar is still running 10s after the main ended" >&2
	kill -KILL "$(<"$pod/proxy.pid")" 2>/dev/null || true
	wait "$proxy_pid" 2>/dev/null || true
	sed 's/^/  proxy log | /' "$pod/proxy.log" >&2
	exit 1
fi
wait "$proxy_pid"

sed 's/^/  job   | /' "$pod/job.out"
sed 's/^/  proxy | /' "$pod/proxy.out"
echo

# field FILE EVENT KEY: KEY's raw value in the first log line of EVENT.
field() {
	sed -n "/\"event\":\"$2\"/{s/.*\"$3\":\"\{0,1\}\([^\",}]*\).*/\1/p;q}" "$1"
}
# ns TIME: an RFC 3339 time as nanoseconds since the epoch.
ns() { date -d "$1" +%s%N; }
# ms FROM TO: the time between two nanosecond stamps, in milliseconds.
ms() {
	local us=$((($2 - $1) / 1000))
	printf '%d.%03d ms' $((us / 1000)) $((us % 1000))
}

job_code=$(<"$pod/job.code")
proxy_code=$(<"$pod/proxy.code")
main_exited=$(field "$pod/job.log" cmd-exited time)
done_time=$(sed -n 's/.*"time":"\([^"]*\)".*/\1/p' "$shared/done")
seen=$(field "$pod/proxy.log" done-seen time)
stopped=$(field "$pod/proxy.log" cmd-exited time)
stop_signal=$(field "$pod/proxy.log" cmd-exited signal)
exiting=$(field "$pod/proxy.log" exiting time)

ok=true
check() { # check CONDITION-TEXT TEST...: report a broken expectation
	local what=$1
	shift
	if ! "$@"; then
		echo "demo: FAILED: $what" >&2
		ok=false
	fi
}
check "the main exits 0 (got $job_code)" test "$job_code" = 0
check "the sidecar exits 0 (got $proxy_code)" test "$proxy_code" = 0
check "the main writes its done file" test -n "$done_time"
check "the sidecar sees the done file" test -n "$seen"
check "the sidecar stops its CMD with SIGTERM (got '${stop_signal}')" test "$stop_signal" = SIGTERM
if [[ $ok != true ]]; then
	sed 's/^/  job   log | /' "$pod/job.log" >&2
	sed 's/^/  proxy log | /' "$pod/proxy.log" >&2
	exit 1
fi

t0=$(ns "$main_exited")
ran=$(field "$pod/job.log" cmd-exited ran_ms)
echo "job   (main)    exit code $job_code, its CMD worked ${ran%.*} ms"
echo "proxy (sidecar) exit code $proxy_code, its CMD stopped because the main was done"
echo
echo "after the main's CMD exited:"
printf '  %12s  %s\n' \
	"$(ms "$t0" "$(ns "$done_time")")" "done file written (its \"time\" field)" \
	"$(ms "$t0" "$(ns "$seen")")" "sidecar saw it" \
	"$(ms "$t0" "$(ns "$stopped")")" "sidecar's CMD stopped (reaped after SIGTERM)" \
	"$(ms "$t0" "$(ns "$exiting")")" "sidecar tandem logged its exit" \
	"$(ms "$t0" "$(<"$pod/proxy.ended")")" "sidecar tandem process gone (seen by this script)"
echo
echo "demo: OK"
