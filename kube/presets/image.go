package presets

import (
	"fmt"
	"strings"
)

// Image is the ENTRYPOINT and CMD that one Dockerfile of the sidecar's
// image states, and the tags it builds: releases not older than Since
// whose tag goes on after the version with one of Suffixes ("" for a tag
// that is the version alone: 5.1.1; "-alpine" for 0.57.0-alpine and
// 0.57.0-alpine-1). A tag that is no release (latest, a digest alone) or
// an older release may be built otherwise, so none applies to it.
type Image struct {
	Since      string   `json:"since"`
	Suffixes   []string `json:"suffixes"`
	Entrypoint []string `json:"entrypoint"`
	Cmd        []string `json:"cmd,omitempty"`
}

func (im Image) check() error {
	if _, ok := release(im.Since); !ok || len(im.Suffixes) == 0 || len(im.Entrypoint) == 0 {
		return fmt.Errorf("since %q, suffixes %q, entrypoint %q: expected a release, at least one suffix and an entrypoint", im.Since, im.Suffixes, im.Entrypoint)
	}
	return nil
}

// Image is the ENTRYPOINT and CMD of the image's tag, as the preset's
// Dockerfile states them; ok is false when no Dockerfile it read builds
// that tag (a debug variant, an older release, latest).
func (m Match) Image() (Image, bool) {
	if _, ok := release(m.Tag); !ok {
		return Image{}, false
	}
	rest := ""
	if _, after, found := strings.Cut(m.Tag, "-"); found {
		rest = "-" + after
	}
	for _, im := range m.Images {
		if olderThan(m.Tag, im.Since) {
			continue
		}
		for _, s := range im.Suffixes {
			if s == rest || s != "" && strings.HasPrefix(rest, s) {
				return im, true
			}
		}
	}
	return Image{}, false
}
