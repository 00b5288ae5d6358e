package inject

import (
	"context"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// Files injects every resource of every file, reporting each, marks the
// documents it changed, and returns how many resources could not be
// injected.
func Files(ctx context.Context, files []*manifest.File, opts Options, report func(Report)) (failed int) {
	for _, f := range files {
		for _, doc := range f.Docs {
			for _, res := range doc.Resources() {
				r := Resource(ctx, res, opts)
				switch r.Status {
				case Injected:
					doc.Changed = true
				case Failed:
					failed++
				}
				report(r)
			}
		}
	}
	return failed
}
