package donewatch

import "github.com/rs/zerolog"

// event names a log line with one of the cmdline.Event names.
func event(e *zerolog.Event, name string) *zerolog.Event { return e.Str("event", name) }

// onceWarner logs one warning per problem, not one per look at the files.
type onceWarner struct {
	log    zerolog.Logger
	warned map[string]bool
}

// warn logs the warning of event name for key, the first time only; msg
// adds the fields and the message.
func (o *onceWarner) warn(key, name string, msg func(*zerolog.Event)) {
	if !o.warned[key] {
		o.warned[key] = true
		msg(event(o.log.Warn(), name))
	}
}
