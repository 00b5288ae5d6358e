package inject

import "slices"

// Argo Workflows runs every container of a step under its executor,
// `/var/run/argo/argoexec emissary -- PROGRAM`. In a sidecar the executor
// sends its program SIGTERM as soon as the main container has ended, while
// Argo's wait container has yet to save the step's outputs, often through
// that very proxy. So tandem goes inside the executor, between it and the
// program, and drops that SIGTERM (--rewrite TERM:0): the done files, wait's
// among them, say when the proxy may stop. The executor still records the
// container's end for Argo.

// Argo's controller stops a step's containers still running once its main
// has ended by running `argoexec kill 15 1` in each. In a sidecar that
// signals the executor, which passes it on by process group to the
// program it started, tandem; but the executor has released that process
// by then, and its pid reads -1: the group kill is kill(-1), every process
// of the container, the proxy past tandem included. The controller runs the
// command a pod's annotation ArgoKillCommandKey+NAME names instead: tandem
// gives a sidecar under the executor one that does nothing (the done files,
// wait's among them, stop it; the kubelet stops it on the pod's deletion).

// ArgoKillCommandKey, followed by a container's name, is the annotation of
// the command Argo's controller runs to signal that container.
const ArgoKillCommandKey = "workflows.argoproj.io/kill-cmd-"

// ArgoKillCommand is the kill command a sidecar under Argo's executor gets,
// as JSON, binary being tandem's path in the pod: a command that succeeds
// and signals nothing.
func ArgoKillCommand(binary string) string {
	return `["` + binary + `","version"]`
}

// ArgoEmissary is how the command Argo's controller gives each container
// of a step starts, with the emissary executor: its flags (--loglevel …)
// follow, up to ExecutorEnd, then the program.
var ArgoEmissary = []string{"/var/run/argo/argoexec", "emissary"}

// ExecutorEnd ends the executor's own arguments.
const ExecutorEnd = "--"

// ExecutorRewrite is the rewrite a sidecar under Argo's executor gets: the
// executor's SIGTERM at the main's end is not a stop.
const ExecutorRewrite = "TERM:0"

// executorOf is the part of command that is Argo's executor, through its
// ExecutorEnd, nil when command does not run a program under it.
func executorOf(command []string) []string {
	if len(command) < len(ArgoEmissary) || !slices.Equal(command[:len(ArgoEmissary)], ArgoEmissary) {
		return nil
	}
	end := slices.Index(command, ExecutorEnd)
	if end < 0 || end+1 == len(command) {
		return nil
	}
	return slices.Clone(command[:end+1])
}

// underExecutor moves sidecar c's executor out of its program: tandem
// runs the program, the executor runs tandem.
func (c *container) underExecutor(command []string) {
	if !c.sidecar {
		return
	}
	c.executor = executorOf(command)
	if n := len(c.executor); n > 0 {
		c.argv = c.argv[n:]
		c.program.Content = c.program.Content[n:]
	}
}

// executorRewrites is the --rewrite a sidecar under an executor gets.
func (c *container) executorRewrites() []string {
	if c.executor == nil {
		return nil
	}
	return []string{ExecutorRewrite}
}

// firstProgram is the file c's container starts: its executor's when it
// has one.
func (c *container) firstProgram() string {
	switch {
	case len(c.executor) > 0:
		return c.executor[0]
	case len(c.argv) > 0:
		return c.argv[0]
	}
	return ""
}

// WithoutExecutor is command past Argo's executor, if it runs under it:
// what tells a container already wrapped in tandem, wherever tandem is.
func WithoutExecutor(command []string) []string {
	return command[len(executorOf(command)):]
}
