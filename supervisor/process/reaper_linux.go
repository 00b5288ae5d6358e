package process

import (
	"errors"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Reaper is the one waiter: a single wait4(-1) loop reaps every child and
// orphan, and hands the statuses of the processes tandem started (CMD, exec:
// probes) to whoever started them. Nothing else in tandem calls wait, and
// there is one Reaper per process (StartReaper returns the same one).
//
// Processes are started on one locked OS thread: the parent-death signal
// follows the thread that forked, so that thread must never exit.
type Reaper struct {
	mu             sync.Mutex // held while forking, so a pid is registered before it can be reaped
	watched        map[int]*watch
	reaped         chan struct{}
	onLockedThread chan func()
}

type watch struct {
	exited  chan Status
	stopped chan unix.Signal // nil unless stops are reported
}

var (
	reaperOnce sync.Once
	theReaper  *Reaper
)

// StartReaper starts the process's reaper on first use and returns it.
// SIGCHLD is registered before any child exists (a child that exits before
// registration would otherwise be missed).
func StartReaper() *Reaper {
	reaperOnce.Do(func() {
		r := &Reaper{
			watched:        make(map[int]*watch),
			reaped:         make(chan struct{}, 1),
			onLockedThread: make(chan func()),
		}
		sigchld := make(chan os.Signal, 1)
		signal.Notify(sigchld, unix.SIGCHLD)
		go r.lockedThread()
		go func() {
			for range sigchld {
				r.reapAll()
			}
		}()
		// Orphans may already be waiting (tandem exec'd into an existing pid).
		r.reapAll()
		theReaper = r
	})
	return theReaper
}

func (r *Reaper) lockedThread() {
	runtime.LockOSThread() // never unlocked: the thread must outlive every child
	for fn := range r.onLockedThread {
		fn()
	}
}

// onThread runs fn on the locked thread and waits for it.
func (r *Reaper) onThread(fn func()) {
	done := make(chan struct{})
	r.onLockedThread <- func() {
		defer close(done)
		fn()
	}
	<-done
}

// NameThread renames the locked thread. That thread lives as long as tandem,
// so the name does too: peers look for it (the peer protocol's "listening").
func (r *Reaper) NameThread(name string) error {
	ptr, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	r.onThread(func() {
		err = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(ptr)), 0, 0, 0)
	})
	return err
}

// Reaped is signalled after each batch in which something was reaped.
func (r *Reaper) Reaped() <-chan struct{} { return r.reaped }

// reapAll collects every exited child. SIGCHLD coalesces, so one signal may
// stand for many exits: loop until nothing is left. WUNTRACED also reports
// job-control stops, for the children that asked.
func (r *Reaper) reapAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	reapedAny := false
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG|unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			break
		}
		w, ok := r.watched[pid]
		if ws.Stopped() {
			if ok && w.stopped != nil {
				select {
				case w.stopped <- ws.StopSignal():
				default: // one pending stop is enough to act on
				}
			}
			continue
		}
		reapedAny = true
		if ok {
			w.exited <- statusFromWait(ws)
			delete(r.watched, pid)
		}
	}
	if reapedAny {
		select {
		case r.reaped <- struct{}{}:
		default:
		}
	}
}

// spawn forks and execs on the locked thread and registers the child before
// the reaper can see it exit.
func (r *Reaper) spawn(path string, argv []string, attr *syscall.ProcAttr, reportStops bool) (int, *watch, error) {
	var (
		pid int
		w   *watch
		err error
	)
	r.onThread(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		// syscall.ForkExec: x/sys/unix has no fork+exec, and os.StartProcess
		// would bring a pidfd and a second waiter into play.
		pid, err = syscall.ForkExec(path, argv, attr)
		if err == nil {
			w = &watch{exited: make(chan Status, 1)}
			if reportStops {
				w.stopped = make(chan unix.Signal, 1)
			}
			r.watched[pid] = w
		}
	})
	return pid, w, err
}

// BecomeSubreaper makes orphans of our descendants come to tandem when it is
// not PID 1 (shareProcessNamespace, or run from a shell).
func BecomeSubreaper() error {
	if os.Getpid() == 1 {
		return nil
	}
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
