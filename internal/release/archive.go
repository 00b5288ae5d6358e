package release

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// WriteArchive writes idx as an OCI image layout in a tar to w: index.json
// names idx ref (a reference such as ghcr.io/tandem-sh/tandem:v1.2.3, the
// name `podman load` and `ctr import` give it), blobs/ holds idx, its
// images and their layers. Entries are sorted, 0644 (0755 for
// directories), owned by 0:0 and stamped with meta.Created.
func WriteArchive(w io.Writer, idx v1.ImageIndex, ref string, meta Meta) error {
	dir, err := os.MkdirTemp("", "tandem-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("oci layout: %w", err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{AnnotationRefName: ref, annotationContainerdName: ref})); err != nil {
		return fmt.Errorf("oci layout: %w", err)
	}
	return tarTree(w, dir, meta.Created)
}

// tarTree writes the files under dir to w, in lexical order.
func tarTree(w io.Writer, dir string, at time.Time) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeDir, Name: filepath.ToSlash(rel) + "/", Mode: 0o755,
			ModTime: at.UTC(), Format: tar.FormatUSTAR}
		if !d.IsDir() {
			return tarFile(tw, path, hdr)
		}
		return tw.WriteHeader(hdr)
	})
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return tw.Close()
}

func tarFile(tw *tar.Writer, path string, hdr *tar.Header) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	hdr.Typeflag, hdr.Name, hdr.Mode, hdr.Size = tar.TypeReg, hdr.Name[:len(hdr.Name)-1], 0o644, fi.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// OpenArchive unpacks the archive at path into a new directory and returns
// the index its index.json names, and a function that removes the directory.
func OpenArchive(path string) (v1.ImageIndex, func(), error) {
	dir, err := os.MkdirTemp("", "tandem-publish-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	idx, err := openArchive(path, dir)
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return idx, cleanup, nil
}

func openArchive(path, dir string) (v1.ImageIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := untar(f, dir); err != nil {
		return nil, err
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("not an OCI image layout: %w", err)
	}
	manifest, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(manifest.Manifests) != 1 || !manifest.Manifests[0].MediaType.IsIndex() {
		return nil, errors.New("expected index.json to name one image index, as make release writes")
	}
	return top.ImageIndex(manifest.Manifests[0].Digest)
}
