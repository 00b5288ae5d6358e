package inject

import (
	"context"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// Prefetcher is a resolver that reads many images at once
// (registry.Resolver): Files hands it every image of the run before
// injecting, so that injection, which asks for one image after another,
// waits on none.
type Prefetcher interface {
	ResolveAll(ctx context.Context, images []string)
}

// Files injects every resource of every file, reporting each, marks the
// documents it changed, and returns how many resources could not be
// injected.
func Files(ctx context.Context, files []*manifest.File, opts Options, report func(Report)) (failed int) {
	type prepared struct {
		doc *manifest.Document
		*Prepared
	}
	var all []prepared
	var images []string
	for _, f := range files {
		for _, doc := range f.Docs {
			for _, res := range doc.Resources() {
				pr := Prepare(res, opts)
				all = append(all, prepared{doc, pr})
				images = append(images, pr.Images()...)
			}
		}
	}
	if p, ok := opts.Resolver.(Prefetcher); ok {
		p.ResolveAll(ctx, images)
	}
	for _, pr := range all {
		r := pr.Inject(ctx)
		switch r.Status {
		case Injected:
			pr.doc.Changed = true
		case Failed:
			failed++
		}
		report(r)
	}
	return failed
}
