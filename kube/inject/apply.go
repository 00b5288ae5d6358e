package inject

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// apply rewrites the pod template as planned; it cannot fail.
func (p *plan) apply(template *yaml.Node, opts Options) {
	volumes := yamlnode.SequenceAt(p.spec, "volumes")
	volumes.Content = append(volumes.Content, yamlnode.Mapping("name", VolumeName,
		"emptyDir", &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}))
	initFirst := []*yaml.Node{p.installContainer(opts.Image)}
	// The kubelet already runs these as native sidecars: only their PID 1
	// changes.
	for _, c := range p.natives {
		c.wrap(p.nativeSidecarArgv(c))
	}
	if opts.Mode == Native {
		for _, c := range p.sidecars {
			c.wrap(p.nativeSidecarArgv(c))
			setAfter(c.node, "restartPolicy", yamlnode.Str("Always"), "image")
			initFirst = append(initFirst, c.node)
		}
		p.wrapNativeMains()
		p.setContainers(p.mains)
	} else {
		p.applyClassic()
	}
	inits := yamlnode.Lookup(p.spec, "initContainers")
	if inits == nil || inits.Kind != yaml.SequenceNode {
		// Where a reader looks for them: just before the containers.
		inits = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		setBefore(p.spec, "initContainers", inits, "containers")
	}
	inits.Style &^= yaml.FlowStyle
	inits.Content = append(initFirst, inits.Content...)
	p.annotate(template, opts)
}

func (p *plan) applyClassic() {
	var doneFiles []string
	for _, c := range p.mains {
		done := MountPath + "/" + c.name + ".done"
		doneFiles = append(doneFiles, done)
		c.wrap(cmdline.Main{Binary: binary, Name: c.name, DoneFile: done, Needs: p.neededReadyFiles(),
			TerminationGrace: p.grace.mainGrace()}.Argv())
	}
	for i, c := range p.sidecars {
		// A native sidecar is started again whatever its code, stops in
		// reverse order of declaration (each after the one declared after
		// it: its stopped file is among this one's done files), and a pod
		// whose main never starts does not keep it for ever.
		sidecar := cmdline.Sidecar{Binary: binary, Name: c.name, DoneFiles: doneFiles,
			OutliveMain: p.grace.period, TerminationSignal: c.terminationSignal, Grace: p.grace.sidecarStopGrace(),
			Restart: cmdline.RestartAlways, MainStartTimeout: mainStartTimeout}
		if i+1 < len(p.sidecars) {
			sidecar.DoneFiles = append(slices.Clone(doneFiles), stoppedFile(p.sidecars[i+1].name))
		}
		if i > 0 {
			sidecar.StoppedFile = stoppedFile(c.name)
		}
		sidecar.ReadyFile, sidecar.ReadyWhen = p.readiness(c)
		sidecar.QuitURLs = c.presetQuitURLs()
		switch yamlnode.ScalarAt(p.spec, "restartPolicy") {
		case "OnFailure":
			// The kubelet retries a failed main in the same pod: keep the proxy.
			sidecar.StopWhen = cmdline.StopWhenSuccess
		case "Always", "":
			// The kubelet restarts the main whatever its end: only the pod's
			// deletion stops the sidecar, as it stops a native one.
			sidecar.StopWhen = cmdline.StopWhenDeletion
		}
		c.wrap(sidecar.Argv())
		if w := c.addStartHook(); w != "" {
			p.warnings = append(p.warnings, w)
		}
	}
	// The kubelet starts containers in order, each after the postStart
	// hook of the one before it returned: sidecars first.
	p.setContainers(append(append([]*container{}, p.sidecars...), p.mains...))
}

// mainStartTimeout is how long a classic sidecar waits for a main to
// start (an image pulled, a command found) before it stops as if done.
const mainStartTimeout = 10 * time.Minute

// stoppedFile is where sidecar writes that it stopped, for the sidecar
// declared before it, which stops after it.
func stoppedFile(sidecar string) string {
	return MountPath + "/" + sidecar + ".stopped"
}

func (p *plan) setContainers(ctrs []*container) {
	seq := yamlnode.Lookup(p.spec, "containers")
	seq.Content = seq.Content[:0]
	for _, c := range ctrs {
		seq.Content = append(seq.Content, c.node)
	}
}

// wrap makes tandem c's command and what c ran its args, and mounts the
// tandem volume.
func (c *container) wrap(command []string) {
	// A comment beside the old command or args is about the program, which
	// is now the args.
	var comments []string
	for _, key := range []string{"command", "args"} {
		if v := yamlnode.Lookup(c.node, key); v != nil && v.LineComment != "" {
			comments = append(comments, v.LineComment)
		}
	}
	setAfter(c.node, "command", yamlnode.StringSeq(command), "image")
	setAfter(c.node, "args", c.program, "command")
	if len(comments) > 0 {
		// The encoder writes a key's line comment after a block value's
		// key, but after a flow value's end only on the value itself.
		at := yamlnode.KeyOf(c.node, "args")
		if c.program.Style&yaml.FlowStyle != 0 {
			at = c.program
		}
		at.LineComment = strings.Join(comments, " ")
	}
	mounts := yamlnode.SequenceAt(c.node, "volumeMounts")
	mounts.Content = append(mounts.Content, mountSeq().Content...)
}

// addStartHook holds the next container's start until this sidecar's
// probe holds. It returns a warning when it cannot.
func (c *container) addStartHook() string {
	cond, budget, ok, err := c.startCondition()
	switch {
	case !ok:
		return ""
	case err != nil:
		return "sidecar " + strconv.Quote(c.name) + " has no start hook: " + err.Error()
	case yamlnode.Path(c.node, "lifecycle", "postStart") != nil:
		return "sidecar " + strconv.Quote(c.name) + " keeps its own postStart hook, so the mains may start before it is ready"
	}
	wait := cmdline.Wait{Binary: binary, For: []string{cond}, Timeout: time.Duration(budget) * time.Second}
	hook := yamlnode.Mapping("exec", yamlnode.Mapping("command", yamlnode.StringSeq(wait.Argv())))
	yamlnode.Set(yamlnode.MappingAt(c.node, "lifecycle"), "postStart", hook)
	return ""
}

// installContainer copies tandem into the volume. It needs no privilege
// and no user of its own (an emptyDir is writable by every user), so it
// asks for neither and meets the "restricted" Pod Security Standard
// whatever the pod says; the user is named because the tandem image (the
// binary alone) has none and would run as root.
func (p *plan) installContainer(image string) *yaml.Node {
	boolean := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v} }
	security := yamlnode.Mapping(
		"runAsNonRoot", boolean("true"),
		"runAsUser", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: nonRootUID},
		"allowPrivilegeEscalation", boolean("false"),
		"readOnlyRootFilesystem", boolean("true"),
		"capabilities", yamlnode.Mapping("drop", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Content: []*yaml.Node{yamlnode.Str("ALL")}}),
		"seccompProfile", yamlnode.Mapping("type", "RuntimeDefault"))
	return yamlnode.Mapping(
		"name", InstallContainer,
		"image", image,
		"command", yamlnode.StringSeq(cmdline.Install{Binary: "/tandem", Dir: MountPath}.Argv()),
		"securityContext", security,
		"volumeMounts", mountSeq())
}

func mountSeq() *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{
		yamlnode.Mapping("name", VolumeName, "mountPath", MountPath)}}
}

// annotate marks the template injected and keeps `kubectl logs` and
// `kubectl exec` on the first main.
func (p *plan) annotate(template *yaml.Node, opts Options) {
	meta := p.meta
	if meta == nil {
		meta = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		template.Content = append([]*yaml.Node{yamlnode.Str("metadata"), meta}, template.Content...)
	}
	annotations := yamlnode.MappingAt(meta, "annotations")
	if yamlnode.Lookup(annotations, DefaultContainer) == nil {
		yamlnode.Set(annotations, DefaultContainer, yamlnode.Str(p.mains[0].name))
	}
	yamlnode.Set(annotations, InjectedKey, yamlnode.Quoted(opts.Version))
}

// setBefore sets a key that m does not have right before the key before
// (else at the end).
func setBefore(m *yaml.Node, key string, value *yaml.Node, before string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == before {
			rest := append([]*yaml.Node{yamlnode.Str(key), value}, m.Content[i:]...)
			m.Content = append(m.Content[:i], rest...)
			return
		}
	}
	m.Content = append(m.Content, yamlnode.Str(key), value)
}

// setAfter sets key in m: in place when present, else right after the
// first of after that m has (else at the end), so that `command` lands by
// `image` rather than below the volume mounts.
func setAfter(m *yaml.Node, key string, value *yaml.Node, after string) {
	if yamlnode.Lookup(m, key) != nil {
		yamlnode.Set(m, key, value)
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == after {
			rest := append([]*yaml.Node{yamlnode.Str(key), value}, m.Content[i+2:]...)
			m.Content = append(m.Content[:i+2], rest...)
			return
		}
	}
	m.Content = append(m.Content, yamlnode.Str(key), value)
}
