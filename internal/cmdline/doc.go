// Package cmdline owns tandem's command line, which is a contract between
// processes and not only with users: cmd/tandem parses it, tandemctl's
// injection writes it into manifests (the builders of argv.go), and
// supervisor/peers reads it back from other processes' /proc/PID/cmdline
// (parse.go). The names of commands and flags (names.go), what their
// values accept (values.go, paths.go) and the log events (events.go) are
// spelled here once, so that renaming one cannot silently break
// injection, discovery or a log pipeline; cmd/tandem's round-trip test
// holds the three sides together.
package cmdline
