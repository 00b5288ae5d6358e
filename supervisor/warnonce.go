package supervisor

import "github.com/rs/zerolog"

// onceWarner logs one warning per problem, not one per look at the files.
type onceWarner struct {
	log    zerolog.Logger
	warned map[string]bool
}

func (o *onceWarner) warn(key string, msg func(*zerolog.Event)) {
	if !o.warned[key] {
		o.warned[key] = true
		msg(o.log.Warn())
	}
}
