// Package supervisor is tandem's engine: it runs one command (CMD) as a
// container's PID 1 and ties its lifetime to the other containers of a pod.
//
// The lifecycle, for every mode:
//
//  1. Become a child subreaper when not PID 1, register SIGCHLD and every
//     forwardable signal before anything is started.
//  2. main: remove a stale done file, then wait for --wait-for conditions.
//     sidecar: watch the done files; if the main is already done, exit 0.
//  3. Start CMD in its own process group from a locked OS thread (so the
//     parent-death signal stays armed), hand it the terminal.
//  4. One goroutine owns CMD's life and selects on: signals (forward, or
//     treat as "done"), CMD's exit from the single wait4(-1) reaper, the done
//     trigger, and timers (grace, --outlive-main, restart backoff).
//  5. When CMD ends, its leftover process group gets the stop signal, grace,
//     then SIGKILL. main then writes its done file, calls quit URLs and
//     signals peers; tandem exits with CMD's code (or 0 for a requested stop).
package supervisor
