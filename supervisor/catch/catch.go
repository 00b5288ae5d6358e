// Package catch registers every signal tandem forwards.
//
// os/signal makes a round trip to the runtime's signal thread for each
// signal it registers: 58 of them take 1-3 ms, more under load, most of it
// waiting for threads to wake. So main calls Begin first thing, and the
// registration runs while the command line is parsed; Caught waits for it
// to be over before CMD starts.
package catch

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
)

var registration struct {
	once  sync.Once
	sigs  chan os.Signal
	done  chan struct{}
	taken atomic.Bool
}

// Begin starts registering every forwarded signal, once, and returns at
// once; Caught finishes it. Before Begin, every signal keeps its default
// action.
func Begin() {
	registration.once.Do(func() {
		// Signal storms: the runtime coalesces pending signals of one kind,
		// and a deep buffer keeps distinct ones from being dropped.
		registration.sigs = make(chan os.Signal, 1024)
		registration.done = make(chan struct{})
		go func() {
			defer close(registration.done)
			signal.Notify(registration.sigs, forwarded()...)
		}()
		// The first log line loads the local time zone (/etc/localtime):
		// load it meanwhile, off the way to CMD's start.
		go func() { _ = time.Local.String() }()
	})
}

// Caught is the channel of every forwarded signal, once registered. The
// channel Begin made goes to the first caller; another (tests that run
// tandem more than once in one process) gets its own, so it never reads
// what came for an earlier one.
func Caught() <-chan os.Signal {
	Begin()
	<-registration.done
	if registration.taken.Swap(true) {
		sigs := make(chan os.Signal, 1024)
		signal.Notify(sigs, forwarded()...)
		return sigs
	}
	return registration.sigs
}

// forwarded is every forwardable signal, less SIGHUP and SIGINT when they
// were ignored at start: catching them would undo the ignore that CMD
// inherits (nohup, background jobs). The Go runtime has already replaced any
// other inherited ignore with its own handler.
func forwarded() []os.Signal {
	var sigs []os.Signal
	for _, sig := range signals.AllForwardable() {
		if (sig == unix.SIGHUP || sig == unix.SIGINT) && signal.Ignored(sig) {
			continue
		}
		sigs = append(sigs, sig)
	}
	return sigs
}
