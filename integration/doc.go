// Package integration tests the built tandem binary as users run it: as a
// process, as PID 1 of a fresh PID namespace, and (under e2e/) in real pods.
//
// The test binary impersonates the programs tandem supervises (see
// helpers_test.go), so no shell script or sleep is needed to synchronise:
// tests wait on files, pipes and tandem's JSON log lines.
package integration
