package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// File is one regular file of an image, owned by root.
type File struct {
	Path string // absolute, as the container sees it
	Mode int64  // permission bits
	Data []byte
}

// newLayer returns the gzipped tar of files and of the directories above
// them (0755), every entry stamped with at and sorted by name.
func newLayer(files []File, at time.Time) (v1.Layer, error) {
	data, err := tarFiles(files, at)
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(
		func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer),
		tarball.WithCompressionLevel(gzip.BestCompression))
}

func tarFiles(files []File, at time.Time) ([]byte, error) {
	type entry struct {
		hdr  tar.Header
		data []byte
	}
	entries := map[string]entry{}
	for _, f := range files {
		name := strings.TrimPrefix(path.Clean(f.Path), "/")
		if !path.IsAbs(f.Path) || name == "" {
			return nil, fmt.Errorf("image file %q: expected an absolute path to a file", f.Path)
		}
		if _, dup := entries[name]; dup {
			return nil, fmt.Errorf("image file %q: given twice", f.Path)
		}
		entries[name] = entry{tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: f.Mode, Size: int64(len(f.Data))}, f.Data}
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if e, ok := entries[dir]; ok && e.hdr.Typeflag != tar.TypeDir {
				return nil, fmt.Errorf("image file %q: /%s is a file, not a directory", f.Path, dir)
			}
			entries[dir] = entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755}}
		}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range names {
		e := entries[name]
		e.hdr.ModTime, e.hdr.Format = at.UTC(), tar.FormatUSTAR
		if err := tw.WriteHeader(&e.hdr); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return buf.Bytes(), nil
}
