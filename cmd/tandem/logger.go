package main

import (
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/logstamp"
)

// globalFlags are every command's but version's.
func (s *settings) globalFlags() []*valueFlag {
	levels := cmdline.Choice([]string{"debug", "info", "warn", "error"},
		zerolog.DebugLevel, zerolog.InfoLevel, zerolog.WarnLevel, zerolog.ErrorLevel)
	formats := []string{"json", "console", "auto"}
	return []*valueFlag{
		// Not given, NoLevel: the mode's level (defaultLevel).
		newFlag(cmdline.FlagLogLevel, one(levels, &s.logLevel),
			"debug, info, warn or error (default: warn for run, as quiet as tini when all goes well; info for the others)"),
		newFlag(cmdline.FlagLogFormat, one(cmdline.Choice(formats, formats...), &s.logFormat), "json, console, or auto (console when stderr is a terminal)"),
	}
}

// defaultLevel is --log-level when not given: run says nothing when all goes
// well; the others say what they saw and did.
func defaultLevel(mode string) zerolog.Level {
	if mode == cmdline.CmdRun {
		return zerolog.WarnLevel
	}
	return zerolog.InfoLevel
}

// logger is the one logger, writing to stderr only: CMD owns stdout.
// Every line carries the mode and, when given, --name (before or after the
// command name).
func (s *settings) logger(mode string) zerolog.Logger {
	level, format, name := s.logLevel, s.logFormat, s.cfg.Name
	if level == zerolog.NoLevel {
		level = defaultLevel(mode)
	}
	var logger zerolog.Logger
	switch {
	case format == "console", format == "auto" && isTerminal(os.Stderr):
		logger = zerolog.New(consoleWriter())
	default:
		logger = zerolog.New(os.Stderr)
	}
	zerolog.TimeFieldFormat = time.RFC3339Nano
	// logstamp.Hook, not Timestamp(): the engine writes some lines after
	// what they report, stamped with when it happened.
	ctx := logger.Level(level).Hook(logstamp.Hook{}).With().Str("mode", mode)
	if name != "" {
		ctx = ctx.Str("name", name)
	}
	return ctx.Logger()
}

func consoleWriter() zerolog.ConsoleWriter {
	// Colours only for a person at a terminal, not in a forced console format
	// captured by a log collector.
	return zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: "15:04:05.000", NoColor: !isTerminal(os.Stderr)}
}
