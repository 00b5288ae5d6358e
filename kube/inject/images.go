package inject

import (
	"context"
	"errors"
	"slices"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Images lists the images that injecting resource with opts will look
// up, in the order it will ask, without looking any up and without
// changing the resource: a caller reads them all at once (concurrently)
// before injecting, so that injection itself never waits on one registry
// after another. It is nil when opts has no Resolver or nothing needs one.
func Images(resource *yaml.Node, opts Options) []string {
	if opts.Resolver == nil {
		return nil
	}
	keys, ok := templatePath(resource)
	if !ok {
		return nil
	}
	template := yamlnode.Path(resource, keys...)
	if template == nil || template.Kind != yaml.MappingNode {
		return nil
	}
	p, err := preparePlan(template, opts)
	if err != nil {
		return nil
	}
	// Plan the reads with a resolver that only takes note: the images are
	// exactly those that the real reads will ask for.
	noted := &imageNotes{}
	opts.Resolver = noted
	for _, c := range p.toWrap(opts.Mode) {
		_, _ = c.read(context.Background(), opts) // fails at each lookup: noted
	}
	return noted.images
}

// imageNotes is an EntrypointResolver that notes what it is asked.
type imageNotes struct{ images []string }

var errNoted = errors.New("noted, not read")

func (n *imageNotes) Resolve(_ context.Context, image string) (ImageConfig, error) {
	if !slices.Contains(n.images, image) {
		n.images = append(n.images, image)
	}
	return ImageConfig{}, errNoted
}
