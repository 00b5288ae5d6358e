package main

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// forwardGap lets the init go idle between two forwarded signals: a signal
// usually arrives at a process that has been asleep, not one still spinning
// from the last.
const forwardGap = 2 * time.Millisecond

// benchSignal: a signal sent to the init until CMD's handler has run (it
// writes a byte to a pipe the bench reads). The same Go CMD under every
// init, so its own handling cost is common to all columns.
func (b *bench) benchSignal() {
	// The Go floor beside the C inits: what remains over it is tandem's,
	// what it has over tini is Go's.
	floor := initProg{name: floorForwardName, path: b.self, prefix: []string{helperArg, "floor-forward"}}
	inits := append([]initProg{b.tandem, floor}, b.peers...)
	cmd := helperArgv(b.self, "sig")
	forward, failed := b.forwardRepeated(inits, cmd)
	term, termFailed := b.termFresh(inits, cmd)
	b.forwardRows(inits, "2a. signal forwarding: SIGUSR1 to the init → CMD's handler ran (one running init, repeated)", forward, failed, true)
	b.forwardRows(inits, "2b. signal forwarding: SIGTERM to a fresh init → CMD's handler ran (one run per init)", term, termFailed, false)
}

// forwardRepeated sends SIGUSR1 many times through one running init per
// subject.
func (b *bench) forwardRepeated(inits []initProg, cmd []string) ([][]time.Duration, []int) {
	forward := make([][]time.Duration, len(inits))
	failed := make([]int, len(inits))
	running := make([]*proc, len(inits))
	for i, in := range inits {
		p, err := startSigCmd(in, cmd)
		if err != nil {
			b.progress("%s: %v", in.name, err)
			failed[i] = b.cfg.forwardRuns
			continue
		}
		running[i] = p
	}
	for range b.cfg.forwardRuns {
		for i, p := range running {
			if p == nil {
				continue
			}
			time.Sleep(forwardGap)
			d, err := signalRoundTrip(p, unix.SIGUSR1, '1')
			if err != nil {
				failed[i]++
				continue
			}
			forward[i] = append(forward[i], d)
		}
	}
	for _, p := range running {
		if p != nil {
			p.stop(unix.SIGTERM, 5*time.Second)
		}
	}
	return forward, failed
}

// termFresh sends SIGTERM once per freshly started init: the path of a pod
// deletion.
func (b *bench) termFresh(inits []initProg, cmd []string) ([][]time.Duration, []int) {
	term := make([][]time.Duration, len(inits))
	termFailed := make([]int, len(inits))
	for range b.cfg.termRuns {
		for i, in := range inits {
			d, err := termOnce(in, cmd)
			if err != nil {
				termFailed[i]++
				if termFailed[i] <= 3 {
					b.progress("%s: SIGTERM: %v", in.name, err)
				}
				continue
			}
			term[i] = append(term[i], d)
		}
	}
	return term, termFailed
}

// forwardRows adds one section's rows, tandem first; headlined: the section
// is one of the headline figures (2a).
func (b *bench) forwardRows(inits []initProg, name string, series [][]time.Duration, failed []int, headlined bool) {
	ref := summarize(series[0])
	for i, in := range inits {
		s := summarize(series[i])
		s.failed = failed[i]
		note := ""
		if in.name == floorForwardName {
			note = "what any Go init pays: the runtime's signal thread, os/signal's goroutine, kill"
			if headlined {
				b.headline(headline{order: headForwardGo, figure: "SIGUSR1 forwarded, against Go's floor", tandem: ref,
					reference: "minimal Go forwarder (os/signal → kill)", ref: s, goal: "(Go's share of the ratio to tini)"})
			}
		}
		if in.name == "tini" && i > 0 {
			note = "target: tandem within 1.5× of tini"
			if headlined {
				b.headline(headline{order: headForward, figure: "SIGUSR1 forwarded", tandem: ref,
					reference: "tini", ref: s, goal: "≤ 1.5×"})
			}
		}
		b.timingRowAgainst(name, in.name, s, ref, note)
	}
}

const floorForwardName = "floor: minimal Go forwarder (os/signal → kill, nothing else)"

// startSigCmd starts init supervising the sig helper and waits until the
// helper's handler is in place.
func startSigCmd(in initProg, cmd []string) (*proc, error) {
	p, err := startProc(in.argv(cmd...), procOptions{})
	if err != nil {
		return nil, err
	}
	c, err := readByte(p.out, time.Now().Add(10*time.Second))
	if err != nil || c != 'R' {
		p.kill()
		return nil, fmt.Errorf("CMD not ready: %q %v", c, err)
	}
	return p, nil
}

// signalRoundTrip sends sig to the init and waits for CMD's byte.
func signalRoundTrip(p *proc, sig unix.Signal, want byte) (time.Duration, error) {
	t0 := time.Now()
	if err := unix.Kill(p.pid(), sig); err != nil {
		return 0, err
	}
	c, err := readByte(p.out, t0.Add(5*time.Second))
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if c != want {
		return 0, fmt.Errorf("CMD wrote %q, want %q", c, want)
	}
	return d, nil
}

func termOnce(in initProg, cmd []string) (time.Duration, error) {
	p, err := startSigCmd(in, cmd)
	if err != nil {
		return 0, err
	}
	defer p.stop(unix.SIGKILL, 5*time.Second)
	time.Sleep(settle)
	d, err := signalRoundTrip(p, unix.SIGTERM, 'T')
	if err != nil {
		return 0, err
	}
	_, _ = waitReadable(time.Now().Add(5*time.Second), p.pidfd)
	return d, nil
}
