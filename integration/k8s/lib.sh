# Sourced by up.sh and down.sh: starting, watching and stopping the
# cluster's processes. Each runs in its own session, with its pid in
# $K8S_STATE/run/NAME.pid and its output in $K8S_LOG/NAME.log.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

say() { printf 'k8s: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

pidfile() { echo "$K8S_STATE/run/$1.pid"; }

# running NAME: its process is alive and is still the one we started.
running() {
  local pid
  pid=$(cat "$(pidfile "$1")" 2>/dev/null) || return 1
  [ -n "$pid" ] && grep -qF -- "$K8S_STATE" "/proc/$pid/cmdline" 2>/dev/null
}

# start NAME PROGRAM ARGS...: unless NAME already runs. Every program is
# given a path under $K8S_STATE on its command line, which is how running
# and down.sh recognise it.
start() {
  local name=$1
  shift
  if running "$name"; then
    say "$name already running (pid $(cat "$(pidfile "$name")"))"
    return 0
  fi
  mkdir -p "$K8S_STATE/run" "$K8S_LOG"
  say "starting $name"
  setsid "$@" >>"$K8S_LOG/$name.log" 2>&1 </dev/null &
  echo $! >"$(pidfile "$name")"
}

# await NAME SECONDS CHECK...: until CHECK succeeds; when NAME dies or the
# time is up, print the tail of its log and fail.
await() {
  local name=$1 seconds=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ! running "$name" || [ $SECONDS -ge $deadline ]; then
      if running "$name"; then say "$name not ready after ${seconds}s"; else say "$name exited"; fi
      say "last lines of $K8S_LOG/$name.log:"
      tail -n 40 "$K8S_LOG/$name.log" >&2
      return 1
    fi
    sleep 0.5
  done
}

# stop NAME: SIGTERM, up to 15 s, then SIGKILL.
stop() {
  local name=$1 pid
  running "$name" || { rm -f "$(pidfile "$name")"; return 0; }
  pid=$(cat "$(pidfile "$name")")
  say "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 150); do
    [ -d "/proc/$pid" ] || break
    sleep 0.1
  done
  [ -d "/proc/$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -f "$(pidfile "$name")"
}

kubectl_admin() { "$K8S_BIN/kubectl" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }
ctr_k8s() { "$CTR" --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }
