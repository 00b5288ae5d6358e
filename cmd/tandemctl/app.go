package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// newApp builds the CLI over the given streams, so tests run it in-process.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	commands := []*cli.Command{injectCommand(), webhookCommand(), policyCommand(), checkCommand(), presetsCommand(), versionCommand(), helpCommand()}
	for _, c := range commands {
		c.OnUsageError = onUsageError // every command's bad flag exits 2
	}
	return &cli.App{
		Name:           "tandemctl",
		Usage:          "wrap the containers of Kubernetes manifests in tandem",
		UsageText:      "tandemctl inject [flags] [FILE|DIR|-]...\n   tandemctl webhook [flags] (in the cluster: examples/webhook/)\n   tandemctl policy [flags] | kubectl apply -f - (Kubernetes 1.36+: no webhook)\n   tandemctl check [--kubeconfig F] [-n NS | -A] [--stuck-after D] [-o text|json]\n   kubectl tandem inject ... (as a kubectl plugin, through a kubectl-tandem link)",
		Version:        version,
		HideVersion:    true,
		Reader:         stdin,
		Writer:         stdout,
		ErrWriter:      stderr,
		Commands:       commands,                 // helpCommand replaces urfave/cli's own,
		Flags:          []cli.Flag{cli.HelpFlag}, // which brought --help along
		OnUsageError:   onUsageError,
		ExitErrHandler: func(*cli.Context, error) {}, // main() alone exits
		Action:         unknownCommand,
	}
}

// unknownCommand runs when the first word is not a command.
func unknownCommand(cliCtx *cli.Context) error {
	if cliCtx.NArg() == 0 {
		return cli.ShowAppHelp(cliCtx)
	}
	return usageError{fmt.Errorf("unknown command %q: expected %s (see `tandemctl --help`)", cliCtx.Args().First(), commandList(cliCtx.App.Commands))}
}

// commandList names the commands as a sentence does, from the table, so
// that a command added there is named here too.
func commandList(commands []*cli.Command) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.Name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// envVars names a flag's environment variable: TANDEMCTL_<FLAG>.
func envVars(flag string) []string {
	return []string{"TANDEMCTL_" + upperSnake(flag)}
}

func upperSnake(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c == '-':
			b[i] = '_'
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
