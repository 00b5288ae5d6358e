package policy

import (
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

// presetList is the table's presets, none when presets are off.
func (g *generator) presetList() []presets.Preset {
	if g.opts.Presets == nil {
		return nil
	}
	return g.opts.Presets.Presets
}

// argv writes each container's tandem command line, as inject's decide
// does for the pods the policy handles.
func (g *generator) argv() []variable {
	bin := str(g.opts.Install.BinaryPath())
	all := "lists.range(size(" + v("names") + "))"
	return []variable{
		{"doneFiles", v("mains") + ".map(i, " + flagPair(cmdline.FlagDoneFile, runFile(nameAt("i"), ".done")) + ").flatten()"},
		{"stopsOnDone", g.stopsOnDone()},
		{"mainArgv", all + ".map(i, " + g.mainArgv(bin) + ")"},
		{"executor", all + ".map(i, " + executorLength() + ")"},
		// k is the sidecar's place among the sidecars, i its container's.
		{"sidecarArgv", "lists.range(size(" + v("sidecars") + ")).map(k, " + g.sidecarArgv(bin) + ")"},
	}
}

// runFile is the CEL of the file of container name (a CEL string) in
// tandem's volume, with suffix.
func runFile(name, suffix string) string {
	return str(inject.MountPath+"/") + " + " + name + " + " + str(suffix)
}

// stopsOnDone: tandem stops the sidecars once the mains are done; in
// native mode only where the mains end (else only the pod's deletion ends
// them, and the kubelet sends that).
func (g *generator) stopsOnDone() string {
	if g.opts.Mode == inject.Classic {
		return "true"
	}
	return v("restart") + " in ['Never', 'OnFailure']"
}

// mainArgv is the CEL of container i's command line as a main.
func (g *generator) mainArgv(bin string) string {
	a := command(bin, cmdline.CmdMain)
	name := nameAt("i")
	a.flag(cmdline.FlagName, name)
	a.flag(cmdline.FlagDoneFile, runFile(name, ".done"))
	a.flagIf(v("mainGrace")+" > 0", cmdline.FlagTerminationGrace, duration(v("mainGrace")))
	a.flagIf(v("signal")+"[i] != ''", cmdline.FlagTerminationSignal, "string("+v("signal")+"[i])")
	return a.end()
}

// sidecarArgv is the CEL of the k-th sidecar's command line, its flags
// in the order of cmdline.Sidecar's.
func (g *generator) sidecarArgv(bin string) string {
	classic := g.opts.Mode == inject.Classic
	i := v("sidecars") + "[k]"
	at := func(list string) string { return v(list) + "[" + i + "]" }
	name, next := nameAt(i), nameAt(v("sidecars")+"[k + 1]")
	stops := v("stopsOnDone")
	a := command(bin, cmdline.CmdSidecar)
	a.flag(cmdline.FlagName, name)
	a.list(v("doneFiles"))
	a.flagIf(stops+" && k + 1 < size("+v("sidecars")+")", cmdline.FlagDoneFile, runFile(next, ".stopped"))
	a.list("(" + choose([][2]string{
		{v("restart") + " == 'OnFailure' && " + stops, flagPair(cmdline.FlagStopWhen, str(cmdline.StopWhenSuccess))},
		{v("restart") + " == 'Always'", flagPair(cmdline.FlagStopWhen, str(cmdline.StopWhenDeletion))},
	}, "[]") + ")")
	a.flagIf(at("delay")+" > 0", cmdline.FlagStopDelay, duration(at("delay")))
	if classic {
		a.flagIf(v("period")+" > 0", cmdline.FlagOutliveMain, "string("+v("period")+") + 's'")
	}
	a.list(g.sidecarSignal(at))
	if classic {
		a.flag(cmdline.FlagRestart, str(cmdline.RestartAlways))
	} else {
		// As inject: tandem restarts a native sidecar only during the pod's
		// deletion, when the kubelet does not.
		a.flagIf("size("+v("doneFiles")+") > 0", cmdline.FlagRestart, str(cmdline.RestartDuringDeletion))
	}
	a.flagIf(stops+" && k > 0", cmdline.FlagStoppedFile, runFile(name, ".stopped"))
	if classic {
		a.flag(cmdline.FlagMainStartTimeout, str(cmdline.Duration(inject.MainStartTimeout)))
	}
	a.flagIf(at("stopGrace")+" > 0", cmdline.FlagGrace, duration(at("stopGrace")))
	a.flagIf(at("quit")+" != ''", cmdline.FlagQuitURL, "string("+at("quit")+")")
	a.flagIf(at("executor")+" > 0", cmdline.FlagRewrite, str(inject.ExecutorRewrite))
	if !classic {
		// As inject: the container waits for the kubelet's stop.
		a.list("(" + stops + " ? " + strList([]string{cmdline.Flag(cmdline.FlagAwaitTermination)}) + " : [])")
	}
	return a.end()
}

// sidecarSignal is the CEL of a sidecar's --termination-signal, in either
// mode (the kubelet stops a native sidecar with it too): what the pod
// states wins over the preset; TERM is the default.
func (g *generator) sidecarSignal(at func(string) string) string {
	signals := presetMap(g.opts.Presets, signalOf)
	stated, preset := at("signal"), at("preset")
	return "(" + choose([][2]string{
		{stated + " != ''", "(" + stated + " != 'TERM' ? " + flagPair(cmdline.FlagTerminationSignal, "string("+stated+")") +
			" : [])"},
		{preset + " in " + signals, flagPair(cmdline.FlagTerminationSignal, "string("+signals+"["+preset+"])")},
	}, "[]") + ")"
}

// executorLength is the CEL of how many words of container i's program
// are Argo's executor, through its ExecutorEnd, which a sidecar keeps in
// front of tandem (docs/inject.md); 0 for a main or none.
func executorLength() string {
	program := v("program") + "[i]"
	end := program + ".indexOf(" + str(inject.ExecutorEnd) + ")"
	cond := []string{v("isSidecar") + "[i]", "size(" + program + ") > " + strconv.Itoa(len(inject.ArgoEmissary))}
	for j, word := range inject.ArgoEmissary {
		cond = append(cond, program+"["+strconv.Itoa(j)+"] == "+str(word))
	}
	cond = append(cond, end+" >= 0", end+" + 1 < size("+program+")")
	return "(" + strings.Join(cond, " && ") + " ? " + end + " + 1 : 0)"
}
