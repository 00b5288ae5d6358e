package main

import (
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor"
)

// doneFlags are `tandem done`'s own, beside peerFlags. --done-file is the
// name sidecar and main use; --file, its older name, stays an alias.
func doneFlags() []cli.Flag {
	doneFile := newFlag(cmdline.FlagDoneFile, one(pathKind("/run/tandem/done", pathRules{}), ""),
		"done file to write (one JSON line, atomically); --file and $TANDEM_FILE, its older names, are still read")
	doneFile.Aliases = []string{cmdline.FlagFile}
	return []cli.Flag{
		doneFile,
		newFlag(cmdline.FlagExitCode, one(exitCodeKind, 0), "the main's exit status to record in the file"),
		newFlag(cmdline.FlagName, one(nameKind, ""), "name recorded in the done file"),
	}
}

// olderDoneFileEnv is the variable `tandem done` read before TANDEM_DONE_FILE:
// manifests may still set it, so it is read when TANDEM_DONE_FILE is not,
// with a warning.
const olderDoneFileEnv = "TANDEM_FILE"

func doneOptions(cliCtx *cli.Context) (supervisor.DoneOptions, error) {
	if err := noArgs(cliCtx, "done takes flags only"); err != nil {
		return supervisor.DoneOptions{}, err
	}
	older, err := readOlderDoneFile(cliCtx)
	if err != nil {
		return supervisor.DoneOptions{}, err
	}
	opts := supervisor.DoneOptions{
		File:       get[string](cliCtx, cmdline.FlagDoneFile),
		ExitCode:   get[int](cliCtx, cmdline.FlagExitCode),
		Name:       get[string](cliCtx, cmdline.FlagName),
		Peers:      peerOptions(cliCtx),
		DoneSignal: get[unix.Signal](cliCtx, cmdline.FlagDoneSignal),
		Log:        newLogger(cliCtx, cmdline.CmdDone),
	}
	if older {
		opts.Log.Warn().Str("event", cmdline.EventDeprecated).Str("variable", olderDoneFileEnv).
			Msgf("%s is deprecated: set %s instead", olderDoneFileEnv, cmdline.EnvVar(cmdline.FlagDoneFile))
	}
	return opts, nil
}

// readOlderDoneFile gives --done-file the value of olderDoneFileEnv, checked
// as any other, when neither the flag nor its variable is given; it says
// whether it did.
func readOlderDoneFile(cliCtx *cli.Context) (bool, error) {
	text, ok := os.LookupEnv(olderDoneFileEnv)
	if !ok || given(cliCtx, cmdline.FlagDoneFile) {
		return false, nil
	}
	if err := cliCtx.Set(cmdline.FlagDoneFile, text); err != nil {
		return false, usagef("%w", refused(olderDoneFileEnv, text, err))
	}
	return true, nil
}
