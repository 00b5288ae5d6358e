package inject

import (
	"fmt"
	"slices"
	"strings"
)

// Status is what happened to one resource.
type Status int

const (
	// Injected: the pod template was rewritten.
	Injected Status = iota
	// Skipped: nothing to do (no sidecars named, opted out, already
	// injected, or a kind without a pod template); written unchanged.
	Skipped
	// Failed: the resource could not be injected and was written unchanged.
	Failed
)

// SkipCause is why a resource was skipped, from a fixed set: unlike
// Reason, it never carries names, so it can label a metric.
type SkipCause string

const (
	NotAnObject     SkipCause = "not-an-object"
	NoPodTemplate   SkipCause = "no-pod-template"
	OptedOut        SkipCause = "opted-out"
	AlreadyInjected SkipCause = "already-injected"
	NoSidecars      SkipCause = "no-sidecars"
)

// Report is the outcome for one resource: one line of `tandemctl inject`'s
// stderr, and what the webhook answers.
type Report struct {
	// Resource is kind/name in lower case, as kubectl prints it.
	Resource string
	Status   Status
	Mains    []string
	Sidecars []string
	// Natives are named sidecars that already were native sidecars: they
	// stay in initContainers, under tandem.
	Natives []string
	// Presets say, for each sidecar a preset described, which preset (and
	// whether its tag is newer than the one the preset was read at).
	Presets map[string]string
	// Reason says why a resource was skipped; Cause says it in one fixed
	// word (the webhook counts skips by it).
	Reason string
	Cause  SkipCause
	// Warnings are things injected without the start order they asked
	// for (a probe that tandem cannot check, an existing postStart hook).
	Warnings []string
	Err      error
}

func (r Report) String() string {
	switch r.Status {
	case Injected:
		var sidecars []string
		for _, name := range r.Sidecars {
			sidecars = append(sidecars, r.withPreset(name, ""))
		}
		for _, name := range r.Natives {
			sidecars = append(sidecars, r.withPreset(name, "already a native sidecar: kept in initContainers"))
		}
		line := fmt.Sprintf("%s: injected (mains: %s; sidecars: %s)", r.Resource,
			strings.Join(r.Mains, ", "), strings.Join(sidecars, ", "))
		for _, w := range r.Warnings {
			line += "; warning: " + w
		}
		return line
	case Skipped:
		return fmt.Sprintf("%s: skipped (%s)", r.Resource, r.Reason)
	default:
		problems := flatten(r.Err)
		if len(problems) < 2 {
			return fmt.Sprintf("%s: not injected: %v", r.Resource, r.Err)
		}
		// Every problem, one per line as kubectl lists a resource's
		// invalid fields, so that one run shows every fix.
		lines := []string{fmt.Sprintf("%s: not injected (%d problems):", r.Resource, len(problems))}
		for _, p := range problems {
			lines = append(lines, "  - "+p.Error())
		}
		return strings.Join(lines, "\n")
	}
}

// withPreset is a sidecar's name with what the report says of it.
func (r Report) withPreset(name, note string) string {
	notes := slices.DeleteFunc([]string{r.Presets[name], note}, func(s string) bool { return s == "" })
	if len(notes) == 0 {
		return name
	}
	return name + " (" + strings.Join(notes, "; ") + ")"
}

// flatten lists the errors that errors.Join put together, however deep.
func flatten(err error) []error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var all []error
	for _, e := range joined.Unwrap() {
		all = append(all, flatten(e)...)
	}
	return all
}

// ContainerError is why one container cannot be wrapped, with the fix.
type ContainerError struct {
	Container, Image string
	Err              error
	Fix              string
}

func (e *ContainerError) Error() string {
	msg := fmt.Sprintf("container %q (image %q): %v", e.Container, e.Image, e.Err)
	if e.Fix != "" {
		msg += ": " + e.Fix
	}
	return msg
}

func (e *ContainerError) Unwrap() error { return e.Err }

// PlatformError: the image has no build for the nodes' platform. Its fix
// is --platform, which the container's error names.
type PlatformError struct {
	Found string // what the registry has: "image X is for linux/arm64", "the index has ..."
	Want  string // the platform asked for
}

func (e *PlatformError) Error() string {
	return fmt.Sprintf("no image for platform %s (%s)", e.Want, e.Found)
}
