package inject

import (
	"slices"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// apply writes what the plan decided into the pod template: it decides
// nothing, and cannot fail.
func (p *plan) apply(template *yaml.Node, opts Options) {
	volumes := yamlnode.SequenceAt(p.spec, "volumes")
	volumes.Content = append(volumes.Content, opts.Install.volumes(opts.Image)...)
	var initFirst []*yaml.Node
	if opts.Install != ImageVolume {
		initFirst = append(initFirst, p.installContainer(opts.Image))
	}
	for _, c := range p.natives {
		c.wrap(opts.Install)
	}
	inits := yamlnode.Lookup(p.spec, "initContainers")
	for i, n := range contentOf(inits) {
		for _, c := range p.natives {
			if n == c.orig {
				inits.Content[i] = c.node
			}
		}
	}
	for _, c := range append(slices.Clone(p.sidecars), p.mains...) {
		c.wrap(opts.Install)
	}
	if opts.Mode == Native {
		for _, c := range p.sidecars {
			setAfter(c.node, "restartPolicy", yamlnode.Str("Always"), "image")
			if !placeAfterWriter(c, inits) {
				initFirst = append(initFirst, c.node)
			}
		}
		p.setContainers(p.mains)
	} else {
		// The kubelet starts containers in order, each after the postStart
		// hook of the one before it returned: sidecars first.
		p.setContainers(append(slices.Clone(p.sidecars), p.mains...))
	}
	p.prependInits(inits, initFirst)
	p.annotate(template, opts)
}

// prependInits puts first before the pod's init containers inits, making
// the list when there is something to put in it.
func (p *plan) prependInits(inits *yaml.Node, first []*yaml.Node) {
	if len(first) == 0 {
		return
	}
	if inits == nil || inits.Kind != yaml.SequenceNode {
		// Where a reader looks for them: just before the containers.
		inits = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		setBefore(p.spec, "initContainers", inits, "containers")
	}
	inits.Style &^= yaml.FlowStyle
	inits.Content = append(first, inits.Content...)
}

// setContainers makes ctrs the pod's containers, in that order.
func (p *plan) setContainers(ctrs []*container) {
	seq := yamlnode.Lookup(p.spec, "containers")
	seq.Content = seq.Content[:0]
	for _, c := range ctrs {
		seq.Content = append(seq.Content, c.written())
	}
}

// written is the node the pod lists for c: its view when apply wrote to
// it, else the container as it was.
func (c *container) written() *yaml.Node {
	if c.command == nil {
		return c.orig
	}
	return c.node
}

// wrap writes c's tandem command, with what c ran as its args, mounts
// the install's volumes, and adds its start hook; it leaves a container
// that is not wrapped alone.
func (c *container) wrap(install Install) {
	if c.command == nil {
		return
	}
	// A comment beside the old command or args is about the program, which
	// is now the args.
	var comments []string
	for _, key := range []string{"command", "args"} {
		if v := yamlnode.Lookup(c.node, key); v != nil && v.LineComment != "" {
			comments = append(comments, v.LineComment)
		}
	}
	setAfter(c.node, "command", yamlnode.StringSeq(append(slices.Clone(c.executor), c.command...)), "image")
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
	mounts.Content = append(mounts.Content, install.mounts()...)
	if c.startupProbe != nil {
		setAfter(c.node, "startupProbe", c.startupProbe, "readinessProbe")
	}
	if c.startHook != nil {
		hook := yamlnode.Mapping("exec", yamlnode.Mapping("command", yamlnode.StringSeq(c.startHook)))
		yamlnode.Set(yamlnode.MappingAt(c.node, "lifecycle"), "postStart", hook)
	}
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
		"volumeMounts", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: InitCopy.mounts()})
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
	for _, c := range append(slices.Clone(p.sidecars), p.natives...) {
		key := ArgoKillCommandKey + c.name
		if c.executor != nil && c.command != nil && yamlnode.Lookup(annotations, key) == nil {
			yamlnode.Set(annotations, key, yamlnode.Str(ArgoKillCommand(p.binary)))
		}
	}
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
