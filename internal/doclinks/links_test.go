package doclinks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRepositoryLinks is the check `make test` runs: every relative link and
// anchor of README.md, the project's pages beside it and docs/*.md leads
// somewhere.
func TestRepositoryLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root is not two levels up: %v", err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md under %s (%v)", root, err)
	}
	files := []string{"README.md", "SECURITY.md", "CONTRIBUTING.md", "CHANGELOG.md"}
	for _, doc := range docs {
		files = append(files, "docs/"+filepath.Base(doc))
	}
	broken, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}
