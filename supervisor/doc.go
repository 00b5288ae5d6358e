// Package supervisor is tandem's engine: it runs one command (CMD) as a
// container's PID 1 and ties its lifetime to the other containers of a pod.
//
// The lifecycle, for every mode (Run):
//
//  1. Become a child subreaper when not PID 1. The forwarded signals'
//     registration began in main, while the command line was parsed
//     (package catch; Run begins it if main could not tell); Run starts
//     the process's one reaper, which registers SIGCHLD, and waits for the
//     registration to end, all before anything is started.
//  2. main: remove a stale done file, wait for --wait-for (main_mode.go).
//     sidecar: build the done sources (package donewatch, on fsnotify and
//     the mains' lifelines), which only send the engine its one event; if
//     the main is already done, exit 0 without starting CMD (sidecar_mode.go).
//  3. Start CMD in its own process group from the reaper's locked thread.
//  4. One goroutine owns CMD (supervise.go). It takes the next event, the
//     ready one that ranks first (pending.go), and one switch hands it to
//     the owner of its decision: what a signal means (policy.go); the stop
//     the done condition begins (stop.go); the pod's deletion, the
//     sidecar's hold of its termination signal and the main's mark
//     (deletion.go); readiness failures; job-control stops; a needed
//     sidecar's loss; CMD's exit. The owners return actions, which the loop
//     applies (apply.go): nothing else signals CMD. While no CMD runs,
//     idle.go takes events the same way.
//  5. When CMD ends, its leftover group gets the stop signal, grace, SIGKILL
//     (leftovers.go), the loop's last phase. A sidecar may restart CMD
//     (sidecar_mode.go); main writes its done file, calls quit URLs,
//     signals peers; tandem exits with CMD's code, or 0 for a requested
//     stop (outcome.go).
//
// What the engine does to CMD, the clock, the terminal, quit URLs and
// status files goes through world.go, so the lifecycle is tested with
// fakes. Sub-packages: process (start, reap, signal, terminal), signals
// (names), catch (their registration), probe (conditions, HTTP),
// statusfile (the JSON line), lifeline (the FIFO a main holds), donewatch
// (the sidecar's done watcher), peers (/proc, pidfds), install.
package supervisor
