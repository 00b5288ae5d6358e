package supervisor

import "time"

// poll is the done watcher's poll job: a look at every done file each
// --poll-interval, in case an inotify event was missed (or alone, where
// inotify is unavailable). Its timer is the world's clock.
type poll struct {
	clock clock
	every time.Duration
}

// due is when to look next; nil (never) while off.
func (p poll) due(on bool) <-chan time.Time {
	if !on {
		return nil
	}
	return p.clock.After(p.every)
}
