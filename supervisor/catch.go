package supervisor

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/signals"
)

// catching is the registration of every forwarded signal. os/signal makes a
// round trip to the runtime's signal thread for each one (58 of them: 1-3 ms,
// more under load, most of it waiting for threads to wake), so main begins
// it (CatchSignals) before the command line is parsed, and Run waits for it
// to be over before CMD starts.
var catching struct {
	once  sync.Once
	sigs  chan os.Signal
	done  chan struct{}
	taken atomic.Bool
}

// CatchSignals begins registering every forwarded signal, once; Run finishes
// it. main calls it only for the commands that supervise a CMD: any other
// command must keep the default actions (a SIGINT ends `tandem wait`).
func CatchSignals() {
	catching.once.Do(func() {
		// Signal storms: the runtime coalesces pending signals of one kind,
		// and a deep buffer keeps distinct ones from being dropped.
		catching.sigs = make(chan os.Signal, 1024)
		catching.done = make(chan struct{})
		go func() {
			defer close(catching.done)
			signal.Notify(catching.sigs, caughtSignals()...)
		}()
		// The first log line loads the local time zone (/etc/localtime):
		// load it meanwhile, off the way to CMD's start.
		go func() { _ = time.Local.String() }()
	})
}

// caught is the channel of every forwarded signal, once registered. The
// channel CatchSignals made goes to the first Run; another Run in the same
// process (tests) gets its own, so it never reads what came for an earlier one.
func caught() <-chan os.Signal {
	CatchSignals()
	<-catching.done
	if catching.taken.Swap(true) {
		sigs := make(chan os.Signal, 1024)
		signal.Notify(sigs, caughtSignals()...)
		return sigs
	}
	return catching.sigs
}

// caughtSignals is every forwardable signal, less SIGHUP and SIGINT when they
// were ignored at start: catching them would undo the ignore that CMD
// inherits (nohup, background jobs). The Go runtime has already replaced any
// other inherited ignore with its own handler.
func caughtSignals() []os.Signal {
	var sigs []os.Signal
	for _, sig := range signals.AllForwardable() {
		if (sig == unix.SIGHUP || sig == unix.SIGINT) && signal.Ignored(sig) {
			continue
		}
		sigs = append(sigs, sig)
	}
	return sigs
}
