package main

import (
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// startupSubject is one command line of the start-up benchmark and its runs.
type startupSubject struct {
	name  string
	argv  []string
	runs  []time.Duration
	fail  int
	floor bool // the minimal Go init
}

// benchStartup: wall time of `INIT -- true`, fork to reaped, against `true`
// alone. Subjects take turns run by run, so load from the neighbours lands
// on all of them alike.
func (b *bench) benchStartup() {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.note("startup skipped: no `true` on PATH")
		return
	}
	subjects := []*startupSubject{{name: "`true` alone", argv: []string{truePath}}}
	// Each init finds `true` on PATH itself, as it would in an image.
	subjects = append(subjects, &startupSubject{name: fmt.Sprintf("`%s`", shellWords(b.tandem.name, b.tandem.prefix, "true")), argv: b.tandem.argv("true")})
	// The Go floor beside the C inits: a Go program that catches the same
	// signals before it runs CMD, as tandem must not lose one meant for CMD.
	floor := initProg{path: b.self, prefix: []string{helperArg, "floor-startup"}}
	subjects = append(subjects, &startupSubject{name: floorStartupName, argv: floor.argv("true"), floor: true})
	for _, in := range b.peers {
		subjects = append(subjects, &startupSubject{name: fmt.Sprintf("`%s`", shellWords(in.name, in.prefix, "true")), argv: in.argv("true")})
	}
	env := cleanEnv()
	for range b.cfg.startupRuns {
		for _, s := range subjects {
			cmd := &exec.Cmd{Path: s.argv[0], Args: s.argv, Env: env}
			t0 := time.Now()
			err := cmd.Run()
			d := time.Since(t0)
			if err != nil {
				s.fail++
				continue
			}
			s.runs = append(s.runs, d)
		}
	}
	b.startupRows(subjects)
}

// startupRows adds the rows: subjects[0] is `true` alone, subjects[1] tandem.
func (b *bench) startupRows(subjects []*startupSubject) {
	const sec = "3. start-up: `INIT -- true`, wall time from fork to reaped"
	base := summarize(subjects[0].runs)
	tandem := summarize(subjects[1].runs)
	for _, s := range subjects {
		sum := summarize(s.runs)
		sum.failed = s.fail
		note := ""
		if s != subjects[0] && sum.n > 0 {
			note = fmt.Sprintf("overhead over `true`: %s", fmtDur(sum.median-base.median))
		}
		if s.floor {
			note += "; what any Go init that forwards every signal pays: the runtime's start, one round trip to its signal thread per caught signal"
			b.headline(headline{order: headStartupGo, figure: "start-up, against Go's floor", tandem: tandem,
				reference: "minimal Go init catching the same signals", ref: sum, goal: "(Go's share of the ratio to tini-static)"})
		}
		if s.name == "`tini-static -- true`" {
			note += "; target: tandem within 3× of this"
			b.headline(headline{order: headStartup, figure: "start-up `INIT -- true`", tandem: tandem,
				reference: "tini-static", ref: sum, goal: "≤ 3×"})
		}
		b.timingRowAgainst(sec, s.name, sum, tandem, note)
	}
}

const floorStartupName = "floor: minimal Go init (os/signal for the same signals → run CMD)"

func shellWords(name string, prefix []string, cmd ...string) string {
	return strings.Join(append(append([]string{name}, prefix...), cmd...), " ")
}
