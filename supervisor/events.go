package supervisor

import "github.com/rs/zerolog"

// event names a log line with one of the cmdline.Event names.
func event(e *zerolog.Event, name string) *zerolog.Event { return e.Str("event", name) }
