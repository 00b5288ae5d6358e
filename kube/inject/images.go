package inject

import "slices"

// Images lists the images that Inject will look up, in the order it will
// ask, each once, without looking any up: nil when opts has no Resolver
// or nothing needs one.
func (pr *Prepared) Images() []string {
	if pr.plan == nil {
		return nil
	}
	var images []string
	for _, c := range pr.plan.toWrap(pr.opts.Mode) {
		image := c.image()
		if c.checkErr == nil && c.lookup(pr.opts) && !slices.Contains(images, image) {
			images = append(images, image)
		}
	}
	return images
}
