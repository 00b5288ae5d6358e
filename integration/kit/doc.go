// Package kit is the vocabulary shared by the tests of the built binaries:
// the process-level tests of integration/, the pods of integration/e2e
// (podman kube play) and the Jobs of integration/k8s (a real cluster).
//
//   - Line is one of tandem's JSON log lines, or a program's line, parsed
//     from a process's stderr (ParseJSON) or from stamped container logs
//     (ParseLogs).
//   - Event is what a test looks for in them, with one matching rule:
//     Tandem(ctr, event) is tandem's `event` field, Program(ctr, text) a
//     line of the program's own. AssertOrder and its kin assert on them;
//     MainThenStop is the chain every sidecar pattern ends with.
//   - Manifest edits the YAML of examples/ on the node helpers tandemctl
//     uses (internal/yamlnode): images, commands, args, flags, containers,
//     volumes; CheckCommands holds the tandem command lines as written.
//   - MarkPlayed and CheckPlayed keep the list of examples every pod suite
//     must play.
//   - Runner is the tool a suite plays pods with (podman, kubectl); Tool
//     runs one, and ContainerLogs reads a container's lines through it.
//   - What both suites' pods need alike: the test image (tools.Containerfile),
//     a registry (StartRegistry), the log shipper's count (CountShipped).
package kit
