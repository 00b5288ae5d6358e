package inject

import (
	"context"
	"errors"
	"fmt"

	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// checkReads checks what c states and decides which of its image's
// fields its injection needs: the program when it has no command and its
// preset states none for its tag; for a sidecar, in either mode, the stop
// signal when the manifest states none (lifecycle.stopSignal or the
// tandem.sh/stop-signal annotation) and no preset names one. It reads
// nothing.
func (c *container) checkReads(opts Options) error {
	command, ok1 := yamlnode.StringsOf(yamlnode.Lookup(c.node, "command"))
	_, ok2 := yamlnode.StringsOf(yamlnode.Lookup(c.node, "args"))
	if !ok1 || !ok2 {
		return c.fail(errors.New("command and args: expected lists of strings"), "write them as lists of strings")
	}
	var err error
	if c.stopSignal, c.signalStated, err = c.statedStopSignal(); err != nil {
		return c.fail(err, "make lifecycle.stopSignal and "+StopSignalKey+c.name+" name the signal the runtime sends it, or keep one")
	}
	_, hasPreset := c.presetSignal()
	c.classicSidecar = c.sidecar && !c.native && opts.Mode == Classic
	c.readProgram = needsImage(command) && !c.programByPreset()
	c.readSignal = c.sidecar && !c.signalStated && !hasPreset
	return nil
}

// knownStopSignal is the stop signal the manifest states for c
// (lifecycle.stopSignal or the tandem.sh/stop-signal annotation), "" when
// it states none: a main told it takes no other signal for its pod's stop
// (a JVM's SIGQUIT for a thread dump starts no termination grace).
func (c *container) knownStopSignal() string {
	if !c.signalStated {
		return ""
	}
	return c.stopSignal
}

// lookup says whether c's image is read from its registry.
func (c *container) lookup(opts Options) bool {
	return opts.Resolver != nil && (c.readProgram || c.readSignal)
}

func (c *container) fail(err error, fix string) error {
	return &ContainerError{Container: c.name, Image: c.image(), Err: err, Fix: fix}
}

func (c *container) image() string { return yamlnode.ScalarAt(c.node, "image") }

// read works out what c runs and, for a sidecar, the signal the runtime
// stops it with (the kubelet sends a native sidecar the same one as a
// classic container), reading the image as checkReads decided. It returns
// a warning when it had to assume the stop signal.
func (c *container) read(ctx context.Context, opts Options) (warning string, err error) {
	commandNode, argsNode := yamlnode.Lookup(c.node, "command"), yamlnode.Lookup(c.node, "args")
	command, _ := yamlnode.StringsOf(commandNode)
	args, _ := yamlnode.StringsOf(argsNode)
	config, lookupErr := c.readImage(ctx, opts, c.readProgram, c.readSignal)
	if lookupErr != nil {
		return "", c.fail(lookupErr.err, lookupErr.fix)
	}
	if c.presetImage != nil {
		if len(args) > 0 {
			c.presetImage.Cmd = nil // replaced by the pod's args, as the report says
		}
		config.Entrypoint, config.Cmd = c.presetImage.Entrypoint, c.presetImage.Cmd
	}
	if c.argv = Program(command, args, config); len(c.argv) == 0 {
		return "", c.fail(errors.New("neither the container nor its image says what to run (no command, no ENTRYPOINT, no CMD)"),
			"give the container a command:")
	}
	c.program = programNode(commandNode, argsNode, config)
	c.underExecutor(command)
	if !c.sidecar {
		return "", nil
	}
	// What the pod states wins; then the image's STOPSIGNAL when it is
	// read anyway, else the preset's, which saves the lookup.
	stopSignal := c.stopSignal
	presetSignal, hasPreset := c.presetSignal()
	switch {
	case !c.signalStated && hasPreset && config.StopSignal == "":
		stopSignal = presetSignal
	case !c.signalStated:
		if stopSignal, err = signalName(config.StopSignal); err != nil {
			return "", c.fail(fmt.Errorf("the image's STOPSIGNAL: %w", err), stopSignalFix(c.name))
		}
	}
	if stopSignal != "TERM" {
		c.terminationSignal = stopSignal
	}
	if c.readSignal && opts.Resolver == nil {
		return fmt.Sprintf("sidecar %q: SIGTERM assumed on pod deletion (--resolve none reads no STOPSIGNAL); if its image sets another, annotate %s%s: SIGNAL",
			c.name, StopSignalKey, c.name), nil
	}
	return "", nil
}

// lookupError is why the image could not be read, with the fix.
type lookupError struct {
	err error
	fix string
}

// readImage reads c's image when its program or its stop signal needs it.
func (c *container) readImage(ctx context.Context, opts Options, program, stopSignal bool) (ImageConfig, *lookupError) {
	switch {
	case program && opts.Resolver == nil:
		return ImageConfig{}, &lookupError{errors.New("no command, and image lookups are off (--resolve none)"),
			"give the container a command: (the image's ENTRYPOINT), or use --resolve registry"}
	case !program && (!stopSignal || opts.Resolver == nil):
		return ImageConfig{}, nil
	}
	config, err := opts.Resolver.Resolve(ctx, yamlnode.ScalarAt(c.node, "image"))
	if err == nil {
		return config, nil
	}
	fix := "give the container a command: (the image's ENTRYPOINT), or make the image readable (credentials, --platform, --insecure-registry, --lookup-timeout)"
	var platform *PlatformError
	switch {
	case errors.As(err, &platform) && program:
		fix = "set --platform to the nodes' platform, or give the container a command: (the image's ENTRYPOINT)"
	case errors.As(err, &platform):
		fix = "set --platform to the nodes' platform, or " + stopSignalFix(c.name)
	case !program:
		fix = stopSignalFix(c.name) + ", or use --resolve none to assume SIGTERM"
	}
	return ImageConfig{}, &lookupError{fmt.Errorf("read the image config: %w", err), fix}
}
