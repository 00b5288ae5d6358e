package supervisor

import (
	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// holdReadyLifeline: a sidecar with --ready-file holds READY_FILE.lifeline
// from its start until it exits, as a main holds its done file's, so a main
// that --needs it sees its tandem end however it ends (see needs.go). CMD's
// restarts keep it: it is this tandem's, not CMD's. The returned func lets
// go.
//
// A ready file left by an earlier tandem (killed outright, so it could not
// remove it) is removed first, before the lifeline is held: a main attached
// to this lifeline then knows that a ready file it sees is this sidecar's.
func holdReadyLifeline(path string, log zerolog.Logger) (release func()) {
	if path == "" {
		return func() {}
	}
	for _, earlier := range []string{path, givenUpPath(path)} {
		if err := statusfile.Unlink(earlier); err != nil {
			event(log.Warn(), cmdline.EventRemoveFailed).Err(err).Str("path", earlier).Msg("cannot remove an earlier ready file")
		}
	}
	h, err := lifeline.Hold(lifeline.Of(path), statusfile.Hostname())
	if err != nil {
		event(log.Warn(), cmdline.EventLifelineMissing).Err(err).
			Msg("no lifeline for the ready file: a main that needs this sidecar will not notice if it is killed outright")
		return func() {}
	}
	return h.Release
}
