package manifest

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Stdin is the name that reads standard input.
const Stdin = "-"

// Read reads and parses every input, in order: a file, a directory
// (recursively: its .yaml, .yml and .json files in lexical order), or "-"
// for stdin; no input at all is stdin. It stops at the first input that
// cannot be read or parsed, so that nothing is written on bad input.
func Read(inputs []string, stdin io.Reader) ([]*File, error) {
	if len(inputs) == 0 {
		inputs = []string{Stdin}
	}
	var files []*File
	for _, in := range inputs {
		names, err := expand(in)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			f, err := readOne(name, stdin)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

func expand(in string) ([]string, error) {
	if in == Stdin {
		return []string{in}, nil
	}
	info, err := os.Stat(in)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", in, err)
	}
	if !info.IsDir() {
		return []string{in}, nil
	}
	var names []string
	err = filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				names = append(names, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", in, err)
	}
	return names, nil
}

func readOne(name string, stdin io.Reader) (*File, error) {
	var data []byte
	var err error
	if name == Stdin {
		data, err = io.ReadAll(stdin)
		name = "<stdin>"
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return Parse(name, data)
}

// WriteAll writes files one after another as one stream: each starts on
// a new line, and a YAML file that does not start with a `---` line gets
// one, so its first document stays a document of its own. In a stream
// that has YAML, each JSON value gets a `---` line too: JSON is YAML's
// flow style, so the stream is one YAML stream, which kubectl reads
// whatever its first document.
func WriteAll(w io.Writer, files []*File) error {
	yamlStream := slices.ContainsFunc(files, func(f *File) bool { return f.Format == YAML })
	var out bytes.Buffer
	for i, f := range files {
		if i > 0 {
			if out.Len() > 0 && out.Bytes()[out.Len()-1] != '\n' {
				out.WriteByte('\n')
			}
			if f.Format == YAML && (len(f.Docs) == 0 || !strings.HasPrefix(string(f.Docs[0].prefix), "---")) {
				out.WriteString("---\n")
			}
		}
		if err := f.write(&out, yamlStream && f.Format == JSON); err != nil {
			return err
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}
