package inject

import (
	"context"
	"errors"
	"fmt"
	pathpkg "path"
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// read works out what c runs and, for a classic sidecar, the signal the
// runtime stops it with. The image is read only when the manifest does not
// say: no command, or a classic sidecar without lifecycle.stopSignal.
func (c *container) read(ctx context.Context, opts Options) error {
	image := yamlnode.ScalarAt(c.node, "image")
	fail := func(err error, fix string) error {
		return &ContainerError{Container: c.name, Image: image, Err: err, Fix: fix}
	}
	commandNode, argsNode := yamlnode.Lookup(c.node, "command"), yamlnode.Lookup(c.node, "args")
	command, ok1 := yamlnode.StringsOf(commandNode)
	args, ok2 := yamlnode.StringsOf(argsNode)
	if !ok1 || !ok2 {
		return fail(errors.New("command and args: expected lists of strings"), "write them as lists of strings")
	}
	if len(command) > 0 && pathpkg.Base(command[0]) == cmdline.Program {
		return fail(fmt.Errorf("already runs tandem (%s)", strings.Join(command, " ")),
			"leave this pod's tandem command lines as they are (drop the sidecar annotation), or remove them to let inject write them")
	}
	stopSignal := yamlnode.ScalarAt(yamlnode.Lookup(c.node, "lifecycle"), "stopSignal")
	needStopSignal := c.sidecar && opts.Mode == Classic && stopSignal == ""
	var config ImageConfig
	if needsImage(command) || (needStopSignal && opts.Resolver != nil) {
		if opts.Resolver == nil {
			return fail(errors.New("no command, and image lookups are off (--resolve none)"),
				"give the container a command: (the image's ENTRYPOINT), or use --resolve registry")
		}
		var err error
		if config, err = opts.Resolver.Resolve(ctx, image); err != nil {
			fix := "give the container a command: (the image's ENTRYPOINT), or make the image readable (credentials, --platform, --insecure-registry)"
			if !needsImage(command) {
				fix = "set the container's lifecycle.stopSignal (SIGTERM if the image has no STOPSIGNAL), or use --resolve none to assume SIGTERM"
			}
			return fail(fmt.Errorf("read the image config: %w", err), fix)
		}
		if stopSignal == "" {
			stopSignal = config.StopSignal
		}
	}
	if len(Program(command, args, config)) == 0 {
		return fail(errors.New("neither the container nor its image says what to run (no command, no ENTRYPOINT, no CMD)"),
			"give the container a command:")
	}
	c.program = programNode(commandNode, argsNode, config)
	if c.sidecar && opts.Mode == Classic {
		sig, err := signalName(stopSignal)
		if err != nil {
			return fail(err, "fix the image's STOPSIGNAL or set lifecycle.stopSignal")
		}
		if sig != "TERM" {
			c.terminationSignal = sig
		}
	}
	return nil
}

// signalName normalises a STOPSIGNAL or lifecycle.stopSignal ("SIGQUIT",
// "quit", "3", "") to the name tandem takes; "" is SIGTERM.
func signalName(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return "TERM", nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n == 15 {
			return "TERM", nil
		}
		if n <= 0 || n > 64 {
			return "", fmt.Errorf("stop signal %q: expected a signal name or a number from 1 to 64", s)
		}
		return s, nil
	}
	name := strings.TrimPrefix(s, "SIG")
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '+' && r != '-' }) >= 0 {
		return "", fmt.Errorf("stop signal %q: expected a signal name such as SIGQUIT, or a number", s)
	}
	return name, nil
}
