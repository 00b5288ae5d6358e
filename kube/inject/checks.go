package inject

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// checkWrapped refuses a pod one of whose containers already runs tandem.
func checkWrapped(spec *yaml.Node) error {
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range contentOf(yamlnode.Lookup(spec, list)) {
			command, _ := yamlnode.StringsOf(yamlnode.Lookup(c, "command"))
			if own := WithoutExecutor(command); len(own) > 0 && path.Base(own[0]) == cmdline.Program &&
				yamlnode.ScalarAt(c, "name") != InstallContainer {
				return fmt.Errorf("already wrapped: container %q runs tandem (%s): leave this pod's tandem command lines as they are (drop the sidecar annotation), or remove them to let inject write them",
					yamlnode.ScalarAt(c, "name"), strings.Join(command, " "))
			}
		}
	}
	return nil
}

// checkCollisions refuses a pod that already uses the names tandem adds
// under install.
func checkCollisions(spec *yaml.Node, install Install) error {
	volumes, paths := []string{VolumeName}, []string{MountPath}
	if install == ImageVolume {
		volumes, paths = append(volumes, BinVolumeName), append(paths, BinMountPath)
	}
	for _, v := range contentOf(yamlnode.Lookup(spec, "volumes")) {
		if name := yamlnode.ScalarAt(v, "name"); slices.Contains(volumes, name) {
			return fmt.Errorf("the pod already has a volume named %q, which tandem adds: rename that volume", name)
		}
	}
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range contentOf(yamlnode.Lookup(spec, list)) {
			if install != ImageVolume && yamlnode.ScalarAt(c, "name") == InstallContainer {
				return fmt.Errorf("the pod already has a container named %q, which tandem adds: rename that container", InstallContainer)
			}
			for _, m := range contentOf(yamlnode.Lookup(c, "volumeMounts")) {
				at := yamlnode.ScalarAt(m, "mountPath")
				if dir := mountDir(at); slices.Contains(paths, dir) {
					if dir != at {
						at += " (that is " + dir + ")"
					}
					return fmt.Errorf("container %q already mounts something at %s, where tandem mounts its volume: move that mount", yamlnode.ScalarAt(c, "name"), at)
				}
			}
		}
	}
	return nil
}

// checkShapes refuses fields that inject adds to but that are not what
// Kubernetes takes there, rather than replacing them.
func checkShapes(meta, spec *yaml.Node, ctrs []*yaml.Node) error {
	want := func(n *yaml.Node, kind yaml.Kind, field string) error {
		if n == nil || n.Kind == kind || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			return nil
		}
		what := map[yaml.Kind]string{yaml.SequenceNode: "a list", yaml.MappingNode: "a mapping"}[kind]
		return fmt.Errorf("%s (line %d): expected %s", field, n.Line, what)
	}
	errs := []error{
		want(yamlnode.Lookup(meta, "annotations"), yaml.MappingNode, "metadata.annotations"),
		want(yamlnode.Lookup(spec, "volumes"), yaml.SequenceNode, "spec.volumes"),
		want(yamlnode.Lookup(spec, "initContainers"), yaml.SequenceNode, "spec.initContainers"),
	}
	for _, c := range ctrs {
		name := "container " + strconv.Quote(yamlnode.ScalarAt(c, "name"))
		errs = append(errs,
			want(yamlnode.Lookup(c, "volumeMounts"), yaml.SequenceNode, name+" volumeMounts"),
			want(yamlnode.Lookup(c, "lifecycle"), yaml.MappingNode, name+" lifecycle"))
	}
	return errors.Join(errs...)
}

// mountDir is the directory a mountPath names: /run/tandem/ and
// //run/tandem are /run/tandem, and a relative path is taken from the
// root, as the kubelet does.
func mountDir(mountPath string) string {
	return path.Clean("/" + mountPath)
}

func contentOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
