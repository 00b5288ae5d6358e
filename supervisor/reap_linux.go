package supervisor

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

// Reaper is the one waiter (SPEC, "Invariants"): a single wait4(-1) loop
// reaps every child and orphan, and hands the statuses of the processes
// tandem started (CMD, exec: probes) to whoever started them. Nothing else
// in tandem calls wait.
//
// Processes are started on one locked OS thread: the parent-death signal
// follows the thread that forked, so that thread must never exit.
type Reaper struct {
	mu             sync.Mutex // held while forking, so a pid is registered before it can be reaped
	watched        map[int]chan Status
	reaped         chan struct{}
	onLockedThread chan func()
}

// StartReaper registers SIGCHLD before any child exists (a child that exits
// before registration would otherwise be missed) and starts the loop.
func StartReaper() *Reaper {
	r := &Reaper{
		watched:        make(map[int]chan Status),
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
	return r
}

func (r *Reaper) lockedThread() {
	runtime.LockOSThread() // never unlocked: the thread must outlive every child
	for fn := range r.onLockedThread {
		fn()
	}
}

// AnnounceListening renames the locked thread to listeningThreadName: the
// mark that peers look for before they send the done signal. That thread
// lives as long as tandem, so the mark does too.
func (r *Reaper) AnnounceListening() error {
	name, err := unix.BytePtrFromString(listeningThreadName)
	if err != nil {
		return err
	}
	done := make(chan error)
	r.onLockedThread <- func() {
		done <- unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0, 0, 0)
	}
	return <-done
}

// Reaped is signalled after each batch in which something was reaped.
func (r *Reaper) Reaped() <-chan struct{} { return r.reaped }

// reapAll collects every exited child. SIGCHLD coalesces, so one signal may
// stand for many exits: loop until nothing is left.
func (r *Reaper) reapAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	reapedAny := false
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			break
		}
		reapedAny = true
		if ch, ok := r.watched[pid]; ok {
			ch <- statusFromWait(ws)
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

// Spawn forks and execs on the locked thread and returns the child's pid and
// a channel that receives its status once reaped.
func (r *Reaper) Spawn(path string, argv []string, attr *syscall.ProcAttr) (int, <-chan Status, error) {
	var (
		pid    int
		exited chan Status
		err    error
	)
	done := make(chan struct{})
	r.onLockedThread <- func() {
		defer close(done)
		r.mu.Lock()
		defer r.mu.Unlock()
		// syscall.ForkExec: x/sys/unix has no fork+exec, and os.StartProcess
		// would bring a pidfd and a second waiter into play.
		pid, err = syscall.ForkExec(path, argv, attr)
		if err == nil {
			exited = make(chan Status, 1)
			r.watched[pid] = exited
		}
	}
	<-done
	return pid, exited, err
}

// BecomeSubreaper makes orphans of our descendants come to tandem when it is
// not PID 1 (shareProcessNamespace, or run from a shell).
func BecomeSubreaper() error {
	if os.Getpid() == 1 {
		return nil
	}
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
