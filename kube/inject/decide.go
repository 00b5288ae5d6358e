package inject

import (
	"slices"
	"strconv"
	"time"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// decide works out, once every program is read, each wrapped container's
// tandem command line and start hook, and the warnings they bring, so
// that apply only writes them. The mains are wrapped in both modes: their
// done files are how a sidecar knows its stop is a requested one, which
// it then ends with 0 whatever its program's code (docs/inject.md).
func (p *plan) decide(opts Options) {
	p.binary = opts.Install.BinaryPath()
	all := p.startOrder(opts.Mode)
	for _, c := range all {
		p.presetEndpoints(c)
	}
	p.warnings = append(p.warnings, p.grace.fit(all)...)
	p.warnings = append(p.warnings, p.preStopWarnings(all)...)
	var doneFiles []string
	for _, c := range p.mains {
		done := MountPath + "/" + c.name + ".done"
		doneFiles = append(doneFiles, done)
		c.command = cmdline.Main{Binary: p.binary, Name: c.name, DoneFile: done, Needs: p.neededReadyFiles(),
			TerminationGrace: p.grace.mainGrace(), TerminationSignal: c.knownStopSignal()}.Argv()
	}
	// Sidecars stop in reverse order of their start, as native sidecars
	// do: each of those tandem stops lists the stopped file of the next
	// one among its done files, so the last stops first.
	var stopped []*container
	for _, c := range all {
		if p.stopsOnDone(c) {
			stopped = append(stopped, c)
		}
	}
	for _, c := range all {
		sidecar := p.sidecarArgv(c, doneFiles)
		if i := slices.Index(stopped, c); i >= 0 {
			if i+1 < len(stopped) {
				sidecar.DoneFiles = append(slices.Clone(doneFiles), stoppedFile(stopped[i+1].name))
			}
			if i > 0 {
				sidecar.StoppedFile = stoppedFile(c.name)
			}
		}
		c.command = sidecar.Argv()
		if p.runsAlone(c) {
			c.command = cmdline.Run{Binary: p.binary, Name: c.name}.Argv()
		}
		switch {
		case c.classicSidecar:
			c.startHook = p.startHook(c)
		case !c.native:
			p.holdNextStart(c)
		}
	}
}

// runsAlone: sidecar c runs under `tandem run`, a correct PID 1 alone, not
// `tandem sidecar`: a native sidecar with nothing of a sidecar's to do (no
// done file, as its own preStop hook leaves its stop to the kubelet in a
// pod whose mains end; no ready file, no budget). Its stop signal then
// means nothing to tandem.
func (p *plan) runsAlone(c *container) bool {
	return c.sidecar && !c.classicSidecar && p.mainsEnd() && !p.stopsOnDone(c) &&
		!slices.Contains(p.needs, c.name) && p.budgets[c.name].max == 0
}

// startOrder lists the sidecars in the order the kubelet starts them: in
// native mode those moved to initContainers, then the pod's own native
// ones; in classic mode the native ones (init containers), then those
// among the containers.
func (p *plan) startOrder(mode Mode) []*container {
	if mode == Native {
		return append(slices.Clone(p.sidecars), p.natives...)
	}
	return append(slices.Clone(p.natives), p.sidecars...)
}

// stopsOnDone says whether tandem stops sidecar c when the mains are
// done. A classic sidecar always. A native one only in a pod whose mains
// end (where the pod restarts them for ever, only its deletion ends the
// sidecar, and the kubelet sends that), and not when it has a preStop
// hook of its own: the kubelet runs that hook once the mains have ended,
// before its SIGTERM, and a sidecar tandem stopped first would never get
// it.
func (p *plan) stopsOnDone(c *container) bool {
	if c.classicSidecar {
		return true
	}
	return p.mainsEnd() && !hasPreStop(c)
}

// mainsEnd: the pod's mains end for good (restartPolicy Never or
// OnFailure), so its sidecars are stopped after them.
func (p *plan) mainsEnd() bool {
	return p.restartPolicy() == "OnFailure" || p.restartPolicy() == "Never"
}

func hasPreStop(c *container) bool { return yamlnode.Path(c.node, "lifecycle", "preStop") != nil }

// preStopWarnings name the native sidecars whose preStop hook keeps them
// from tandem's stop, in a pod whose mains end: their code on the
// kubelet's SIGTERM stands.
func (p *plan) preStopWarnings(all []*container) []string {
	var warnings []string
	for _, c := range all {
		if !c.classicSidecar && p.mainsEnd() && hasPreStop(c) {
			warnings = append(warnings, "sidecar "+strconv.Quote(c.name)+" keeps its preStop hook, which the kubelet runs once the mains have ended: the kubelet stops it, not tandem, so its exit code on that SIGTERM stands")
		}
	}
	return warnings
}

// restartPolicy is the pod's, "" when unset (Always).
func (p *plan) restartPolicy() string { return yamlnode.ScalarAt(p.spec, "restartPolicy") }

// sidecarArgv is sidecar c's command line but for the shutdown order.
func (p *plan) sidecarArgv(c *container, doneFiles []string) cmdline.Sidecar {
	sidecar := cmdline.Sidecar{Binary: p.binary, Name: c.name}
	sidecar.ReadyFile, sidecar.ReadyWhen = p.readiness(c)
	if budget := p.budgets[c.name]; budget.max > 0 {
		sidecar.Restart, sidecar.MaxRestarts, sidecar.RestartWindow = cmdline.RestartAlways, budget.max, budget.window
	}
	if p.stopsOnDone(c) || !p.mainsEnd() {
		// Its stop, quit calls first, within the time the mains leave.
		sidecar.DoneFiles, sidecar.QuitURLs = doneFiles, c.quitURLs
		sidecar.StopDelay = p.grace.delays[c.name]
		sidecar.Grace = p.grace.sidecarStopGrace(c)
	}
	switch p.restartPolicy() {
	case "OnFailure":
		if p.stopsOnDone(c) {
			// The kubelet retries a failed main in the same pod: keep the proxy.
			sidecar.StopWhen = cmdline.StopWhenSuccess
		}
	case "Always", "":
		// The kubelet restarts the main whatever its end: only the pod's
		// deletion stops the sidecar. A native one it signals once the
		// mains have ended on it, which their termination marks tell
		// tandem: the stop it then makes ends with 0.
		sidecar.StopWhen = cmdline.StopWhenDeletion
	}
	// The signal the kubelet stops it with, in either mode: a native
	// sidecar gets it once the mains have ended, and tandem must take it
	// for the pod's deletion, not for a reload to forward.
	sidecar.TerminationSignal = c.terminationSignal
	sidecar.Rewrites = c.executorRewrites()
	if !c.classicSidecar {
		// The kubelet starts a native sidecar again when its container
		// ends before the kubelet has seen the mains' end: after its stop
		// on their done files, the container waits for the kubelet's own.
		sidecar.AwaitTermination = p.stopsOnDone(c)
		if sidecar.Restart == "" && len(sidecar.DoneFiles) > 0 {
			// The kubelet restarts no container of a pod being deleted:
			// while the mains drain, tandem does (their termination marks
			// beside the done files tell it); elsewhere the kubelet's
			// restarts stand.
			sidecar.Restart = cmdline.RestartDuringDeletion
		}
		return sidecar
	}
	// A native sidecar is started again whatever its code, outlives the
	// mains on the pod's deletion, and a pod whose main never starts does
	// not keep it for ever: the kubelet does all this for a native one.
	sidecar.OutliveMain = p.grace.period
	sidecar.Restart, sidecar.MainStartTimeout = cmdline.RestartAlways, MainStartTimeout
	return sidecar
}

// MainStartTimeout is how long a classic sidecar waits for a main to
// start (an image pulled, a command found) before it stops as if done.
const MainStartTimeout = 10 * time.Minute

// stoppedFile is where sidecar writes that it stopped, for the sidecar
// declared before it, which stops after it.
func stoppedFile(sidecar string) string {
	return MountPath + "/" + sidecar + ".stopped"
}

// startHook is the postStart command that holds the next container's
// start until sidecar c's probe holds; nil, with a warning when it
// cannot, if there is none.
func (p *plan) startHook(c *container) []string {
	cond, budget, ok, err := c.startCondition()
	switch {
	case !ok:
		return nil
	case err != nil:
		p.warnings = append(p.warnings, "sidecar "+strconv.Quote(c.name)+" has no start hook: "+err.Error())
		return nil
	case yamlnode.Path(c.node, "lifecycle", "postStart") != nil:
		p.warnings = append(p.warnings, "sidecar "+strconv.Quote(c.name)+" keeps its own postStart hook, so the mains may start before it is ready")
		return nil
	}
	return cmdline.Wait{Binary: p.binary, For: []string{cond}, Timeout: time.Duration(budget) * time.Second}.Argv()
}
