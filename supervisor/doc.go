// Package supervisor is tandem's engine: it runs one command (CMD) as a
// container's PID 1 and ties its lifetime to the other containers of a pod.
//
// The lifecycle, for every mode (Run):
//
//  1. Become a child subreaper when not PID 1; the process's one reaper
//     (process.StartReaper) registers SIGCHLD, then every forwardable
//     signal is registered, before anything is started.
//  2. main: remove a stale done file, wait for --wait-for (main_mode.go).
//     sidecar: build the done watcher (package donewatch, on fsnotify and
//     the mains' lifelines), which only sends the engine its one event; if
//     the main is already done, exit 0 without starting CMD (sidecar_mode.go).
//  3. Start CMD in its own process group from the reaper's locked thread.
//  4. One goroutine owns CMD (supervise.go) and selects on: signals, whose
//     meaning one table in policy.go gives (forward, done, hold, absorb,
//     drop); the done condition; the timers and quit calls of the stop
//     sequence (stop.go); readiness failures; job-control stops; CMD's exit.
//     Nothing else signals CMD. While no CMD runs, idle.go reads signals by
//     the same table (done, terminate, ignore).
//  5. When CMD ends, its leftover group gets the stop signal, grace, SIGKILL
//     (leftovers.go). main then writes its done file, calls quit URLs,
//     signals peers; tandem exits with CMD's code, or 0 for a requested stop.
//
// The engine reaches the world only through the interfaces of world.go, so
// the lifecycle is tested with fakes (run_test.go). Sub-packages: process
// (start, reap, signal, terminal), signals (names), probe (conditions, HTTP),
// statusfile (the JSON line), lifeline (the FIFO a main holds), donewatch (the
// sidecar's done watcher), peers (/proc, pidfds), install.
package supervisor
