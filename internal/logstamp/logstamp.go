// Package logstamp stamps each log line's "time": the moment it is written,
// or, for a line written after the thing it reports (the stop signal goes
// out before the lines that say so), the moment that thing happened. The
// log then reads in the order things happened, with exact times.
package logstamp

import (
	"context"
	"time"

	"github.com/rs/zerolog"
)

type atKey struct{}

// Hook replaces zerolog's Timestamp(): a logger built with it stamps lines
// as Timestamp() does, unless At gave the line its own time.
type Hook struct{}

// Run adds the "time" field in zerolog's own format.
func (Hook) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	t, ok := e.GetCtx().Value(atKey{}).(time.Time)
	if !ok {
		t = zerolog.TimestampFunc()
	}
	e.Time(zerolog.TimestampFieldName, t)
}

// At makes a line report t as its time (with Hook; without it, nothing).
func At(e *zerolog.Event, t time.Time) *zerolog.Event {
	if e == nil {
		return e
	}
	return e.Ctx(context.WithValue(context.Background(), atKey{}, t))
}
