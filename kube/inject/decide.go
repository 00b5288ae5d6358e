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
// that apply only writes them.
func (p *plan) decide(opts Options) {
	for _, c := range append(slices.Clone(p.sidecars), p.natives...) {
		p.presetEndpoints(c)
	}
	// The kubelet already runs these as native sidecars: only their PID 1
	// changes.
	for _, c := range p.natives {
		c.command = p.nativeSidecarArgv(c)
	}
	if opts.Mode == Native {
		for _, c := range p.sidecars {
			c.command = p.nativeSidecarArgv(c)
		}
		// The mains write no done file: the kubelet, not tandem, stops
		// native sidecars. They are wrapped only when they need sidecars.
		if len(p.needs) > 0 {
			for _, c := range p.mains {
				c.command = cmdline.Main{Binary: binary, Name: c.name, Needs: p.neededReadyFiles()}.Argv()
			}
		}
		return
	}
	steps := 1
	for _, c := range p.sidecars {
		steps = max(steps, c.stopSteps())
	}
	p.warnings = append(p.warnings, p.grace.fit(steps)...)
	var doneFiles []string
	for _, c := range p.mains {
		done := MountPath + "/" + c.name + ".done"
		doneFiles = append(doneFiles, done)
		c.command = cmdline.Main{Binary: binary, Name: c.name, DoneFile: done, Needs: p.neededReadyFiles(),
			TerminationGrace: p.grace.mainGrace(), TerminationSignal: c.knownStopSignal()}.Argv()
	}
	for i, c := range p.sidecars {
		c.command = p.classicSidecar(i, c, doneFiles).Argv()
		c.startHook = p.startHook(c)
	}
}

// classicSidecar is the i-th sidecar's command line in classic mode.
func (p *plan) classicSidecar(i int, c *container, doneFiles []string) cmdline.Sidecar {
	// A native sidecar is started again whatever its code, stops in
	// reverse order of declaration (each after the one declared after
	// it: its stopped file is among this one's done files), and a pod
	// whose main never starts does not keep it for ever.
	sidecar := cmdline.Sidecar{Binary: binary, Name: c.name, DoneFiles: doneFiles,
		OutliveMain: p.grace.period, TerminationSignal: c.terminationSignal, Grace: p.grace.sidecarStopGrace(c.stopSteps()),
		Restart: cmdline.RestartAlways, MainStartTimeout: mainStartTimeout}
	if i+1 < len(p.sidecars) {
		sidecar.DoneFiles = append(slices.Clone(doneFiles), stoppedFile(p.sidecars[i+1].name))
	}
	if i > 0 {
		sidecar.StoppedFile = stoppedFile(c.name)
	}
	sidecar.ReadyFile, sidecar.ReadyWhen = p.readiness(c)
	sidecar.QuitURLs = c.quitURLs
	switch yamlnode.ScalarAt(p.spec, "restartPolicy") {
	case "OnFailure":
		// The kubelet retries a failed main in the same pod: keep the proxy.
		sidecar.StopWhen = cmdline.StopWhenSuccess
	case "Always", "":
		// The kubelet restarts the main whatever its end: only the pod's
		// deletion stops the sidecar, as it stops a native one.
		sidecar.StopWhen = cmdline.StopWhenDeletion
	}
	return sidecar
}

// mainStartTimeout is how long a classic sidecar waits for a main to
// start (an image pulled, a command found) before it stops as if done.
const mainStartTimeout = 10 * time.Minute

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
	return cmdline.Wait{Binary: binary, For: []string{cond}, Timeout: time.Duration(budget) * time.Second}.Argv()
}
