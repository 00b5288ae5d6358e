package main

import (
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
)

func globalFlags() []flagSpec {
	return []flagSpec{
		{cmdline.FlagLogLevel, "info", "debug, info, warn or error"},
		{cmdline.FlagLogFormat, "auto", "json, console, or auto (console when stderr is a terminal)"},
	}
}

// newLogger builds the one logger, writing to stderr only: CMD owns stdout.
// Every line carries the mode and, when given, --name (before or after the
// command name).
func newLogger(cliCtx *cli.Context, mode string) (zerolog.Logger, error) {
	levelText := flagString(cliCtx, cmdline.FlagLogLevel)
	level, err := zerolog.ParseLevel(levelText)
	if err != nil || levelText == "" || level > zerolog.ErrorLevel || level < zerolog.DebugLevel {
		return zerolog.Nop(), usagef("--%s %q: expected debug, info, warn or error", cmdline.FlagLogLevel, levelText)
	}
	var logger zerolog.Logger
	switch format := flagString(cliCtx, cmdline.FlagLogFormat); format {
	case "json":
		logger = zerolog.New(os.Stderr)
	case "console":
		logger = zerolog.New(consoleWriter())
	case "auto":
		if isTerminal(os.Stderr) {
			logger = zerolog.New(consoleWriter())
		} else {
			logger = zerolog.New(os.Stderr)
		}
	default:
		return zerolog.Nop(), usagef("--%s %q: expected json, console or auto", cmdline.FlagLogFormat, format)
	}
	zerolog.TimeFieldFormat = time.RFC3339Nano
	// logstamp.Hook, not Timestamp(): the engine writes some lines after
	// what they report, stamped with when it happened.
	ctx := logger.Level(level).Hook(logstamp.Hook{}).With().Str("mode", mode)
	if name := flagString(cliCtx, cmdline.FlagName); name != "" {
		ctx = ctx.Str("name", name)
	}
	return ctx.Logger(), nil
}

func consoleWriter() zerolog.ConsoleWriter {
	// Colours only for a person at a terminal, not in a forced console format
	// captured by a log collector.
	return zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: "15:04:05.000", NoColor: !isTerminal(os.Stderr)}
}
