package main

import (
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"
)

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: envVars("log-level"),
			Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Value: "auto", EnvVars: envVars("log-format"),
			Usage: "json, console, or auto (console when stderr is a terminal)"},
	}
}

// newLogger builds the one logger, writing to stderr only: CMD owns stdout.
// Every line carries the mode and, when given, --name (before or after the
// command name).
func newLogger(cliCtx *cli.Context, mode string) (zerolog.Logger, error) {
	levelText := flagString(cliCtx, "log-level")
	level, err := zerolog.ParseLevel(levelText)
	if err != nil || levelText == "" || level > zerolog.ErrorLevel || level < zerolog.DebugLevel {
		return zerolog.Nop(), usagef("--log-level %q: expected debug, info, warn or error", levelText)
	}
	var logger zerolog.Logger
	switch format := flagString(cliCtx, "log-format"); format {
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
		return zerolog.Nop(), usagef("--log-format %q: expected json, console or auto", format)
	}
	zerolog.TimeFieldFormat = time.RFC3339Nano
	ctx := logger.Level(level).With().Timestamp().Str("mode", mode)
	if name := flagString(cliCtx, "name"); name != "" {
		ctx = ctx.Str("name", name)
	}
	return ctx.Logger(), nil
}

func consoleWriter() zerolog.ConsoleWriter {
	// Colours only for a person at a terminal, not in a forced console format
	// captured by a log collector.
	return zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: "15:04:05.000", NoColor: !isTerminal(os.Stderr)}
}

func envVars(flag string) []string {
	return []string{envName(flag)}
}

// envName is TANDEM_<FLAG>: upper case, '-' becomes '_'.
func envName(flag string) string {
	return "TANDEM_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}
