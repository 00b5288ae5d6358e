package manifest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// roundTrip parses data, marks the documents for which change returns true
// as changed (after letting it edit them), and writes the file again.
func roundTrip(t *testing.T, name, data string, change func(*yaml.Node) bool) string {
	t.Helper()
	f, err := Parse(name, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Docs {
		for _, r := range d.Resources() {
			if change(r) {
				d.Changed = true
			}
		}
	}
	var out bytes.Buffer
	if err := f.Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func never(*yaml.Node) bool { return false }

// Unchanged documents come out byte for byte, whatever their form.
func TestUnchangedIsByteForByte(t *testing.T) {
	inputs := map[string]string{
		"odd formatting": "# head\n---   # marker comment\napiVersion: v1\nkind:    ConfigMap   # spaced\nmetadata: {name: a}\ndata:\n\n  k: |\n    ---\n     indented\n\n...\n---\n# comments alone\n---\nkind: Secret\nstringData: {a: 'b'}",
		"crlf":           "kind: ConfigMap\r\nmetadata:\r\n  name: a\r\n---\r\nkind: Secret\r\n",
		"json stream":    "{\"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"a\"}}\n\n  {\"kind\":\"Secret\"}  \n",
		"json list":      "[1, 2]",
		"yaml flow":      "{kind: ConfigMap, metadata: {name: a}}\n---\n{kind: Secret}\n",
		"empty":          "",
	}
	for name, in := range inputs {
		if got := roundTrip(t, name, in, never); got != in {
			t.Errorf("%s: wrote\n%q\nwant\n%q", name, got, in)
		}
	}
}

// A changed document is encoded again; its neighbours are not touched.
func TestChangedDocumentAmongOthers(t *testing.T) {
	in := "kind: ConfigMap   # spaced\ndata: {a: 1}\n---\n# the job\nkind: Job\nmetadata:\n  name: j # its name\nspec:\n  list:\n  - a\n  - b\n---\nkind:  Service\n"
	got := roundTrip(t, "f.yaml", in, func(n *yaml.Node) bool {
		if field(n, "kind").Value != "Job" {
			return false
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "added"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "yes"})
		return true
	})
	want := "kind: ConfigMap   # spaced\ndata: {a: 1}\n---\n# the job\nkind: Job\nmetadata:\n  name: j # its name\nspec:\n  list:\n  - a\n  - b\nadded: yes\n---\nkind:  Service\n"
	if got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
}

func TestDetectYAMLStyle(t *testing.T) {
	tests := []struct {
		in   string
		want style
	}{
		{"a:\n  b:\n    - c\n", style{indent: 2}},
		{"a:\n    b:\n    - c\n", style{indent: 4, compactSeq: true}},
		{"# c\nlist:\n- a\nm:\n   k: v\n", style{indent: 3, compactSeq: true}},
		{"k: v\n", style{indent: 2}},
	}
	for _, tt := range tests {
		if got := detectYAMLStyle([]byte(tt.in)); got != tt.want {
			t.Errorf("detectYAMLStyle(%q) = %+v; want %+v", tt.in, got, tt.want)
		}
	}
}

// JSON in, JSON out: keys in their order, the file's indentation.
func TestChangedJSON(t *testing.T) {
	in := "{\n    \"kind\": \"Job\",\n    \"spec\": {\"n\": 1.5, \"b\": true, \"z\": null, \"s\": \"<a&b>\"}\n}\n"
	got := roundTrip(t, "f.json", in, func(n *yaml.Node) bool {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "args"},
			&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "--"}, {Kind: yaml.ScalarNode, Tag: "!!int", Value: "3"}}})
		return true
	})
	want := "{\n    \"kind\": \"Job\",\n    \"spec\": {\n        \"n\": 1.5,\n        \"b\": true,\n        \"z\": null,\n        \"s\": \"<a&b>\"\n    },\n    \"args\": [\n        \"--\",\n        3\n    ]\n}\n"
	if got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
}

func TestListItemsAreResources(t *testing.T) {
	f, err := Parse("l.yaml", []byte("kind: List\nitems:\n  - kind: Job\n  - kind: Pod\n  - 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Docs[0].Resources()); got != 2 {
		t.Errorf("%d resources; want the 2 mappings of items", got)
	}
}

// Input that does not parse names the file and the line.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"f.yaml", "kind: Pod\n---\nkind: Job\nspec:\n  a: b\n   c: d\n", "f.yaml:6: does not parse as YAML: "},
		{"f.yaml", "a: [1, 2\n", "f.yaml:"},
		{"f.yaml", "a: 1\n...\nb: [\n", "f.yaml:2: does not parse as YAML: did not find expected <document start>"},
		{"f.yaml", "kind: Pod\nkind: Job\n", "f.yaml:2: does not parse as YAML: mapping key \"kind\" already defined at line 1"},
		{"f.json", "{\"kind\": \"Pod\",\n  \"spec\": {,}}\n", "f.json:2: does not parse as JSON: "},
		{"f.json", "{\"a\": 1}\n{\"b\": \n", "f.json:"},
		{"f.json", "\n{\"a\": 1,\n \"a\": 2}", "f.json:3: does not parse as JSON: mapping key \"a\" already defined at line 2"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.name, []byte(tt.in))
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error starting %q", tt.in, err, tt.want)
		}
	}
}

// Files in a stream: a YAML file that does not start with `---` gets one,
// every file starts on a line of its own, and a JSON value after YAML is
// a document of its own: the stream parses.
func TestWriteAll(t *testing.T) {
	var files []*File
	for i, in := range []string{"a: 1", "---\nb: 2\n", "c: 3\n", "{\"d\": 4}"} {
		f, err := Parse(string(rune('a'+i)), []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var out bytes.Buffer
	if err := WriteAll(&out, files); err != nil {
		t.Fatal(err)
	}
	if want := "a: 1\n---\nb: 2\n---\nc: 3\n---\n{\"d\": 4}"; out.String() != want {
		t.Errorf("wrote %q; want %q", out.String(), want)
	}
	if _, err := Parse("out", out.Bytes()); err != nil {
		t.Errorf("the stream does not parse: %v", err)
	}
}

// In a stream with YAML, every JSON value is a YAML document of its own,
// the first file's too (kubectl reads a stream as JSON when it starts with
// one, and then stops at the YAML); a stream of JSON alone stays JSON.
func TestWriteAllMixedFormats(t *testing.T) {
	tests := []struct {
		inputs []string
		want   string
	}{
		{[]string{"{\"a\": 1}\n{\"b\": 2}\n", "c: 3\n", "{\"d\": 4}\n"}, "---\n{\"a\": 1}\n---\n\n{\"b\": 2}\n---\nc: 3\n---\n{\"d\": 4}\n"},
		{[]string{"{\"a\": 1}\n", "{\"b\": 2}"}, "{\"a\": 1}\n{\"b\": 2}"},
	}
	for _, tt := range tests {
		var files []*File
		docs := 0
		for i, in := range tt.inputs {
			f, err := Parse(string(rune('a'+i)), []byte(in))
			if err != nil {
				t.Fatal(err)
			}
			files, docs = append(files, f), docs+len(f.Docs)
		}
		var out bytes.Buffer
		if err := WriteAll(&out, files); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%q: wrote %q; want %q", tt.inputs, out.String(), tt.want)
		}
		f, err := Parse("out", out.Bytes())
		if err != nil || len(f.Docs) != docs {
			t.Errorf("%q: the stream does not parse into its documents: %v", tt.inputs, err)
		}
	}
}

// A JSON value written anew ends its line: two values from one line come
// out on two, and the last one ends with a newline; white space that the
// input had after a value is kept.
func TestChangedJSONEndsItsLine(t *testing.T) {
	tests := map[string]string{
		`{"a":1}{"b":2}`:         "{\"a\":1,\"x\":true}\n{\"b\":2,\"x\":true}\n",
		"{\"a\":1}\n{\"b\":2}\n": "{\"a\":1,\"x\":true}\n{\"b\":2,\"x\":true}\n",
		"{\"a\":1}  \n":          "{\"a\":1,\"x\":true}  \n",
	}
	for in, want := range tests {
		got := roundTrip(t, "f.json", in, func(n *yaml.Node) bool {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x"}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
			return true
		})
		if got != want {
			t.Errorf("%q: wrote %q; want %q", in, got, want)
		}
	}
}

// Blank lines of a changed document are kept; where one is inside a value
// (a block scalar), the value is kept instead.
func TestBlankLinesOfChangedDocuments(t *testing.T) {
	addKey := func(n *yaml.Node) bool {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "added"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "yes"})
		return true
	}
	in := "kind: Job\n\nspec:\n  a: 1\n\n\n  b:\n    - x\n\n    - y\n"
	if got, want := roundTrip(t, "f.yaml", in, addKey), in+"added: yes\n"; got != want {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}
	in = "kind: Job\n\nspec:\n  script: |\n    one\n\n    two\n"
	got := roundTrip(t, "f.yaml", in, addKey)
	var doc struct{ Spec struct{ Script string } }
	if err := yaml.Unmarshal([]byte(got), &doc); err != nil || doc.Spec.Script != "one\n\ntwo\n" {
		t.Errorf("the block scalar changed (%v): %q\n%s", err, doc.Spec.Script, got)
	}
}

// A changed JSON List writes its untouched items as they were read, and
// the changed one indented from where it stood.
func TestChangedJSONListKeepsUntouchedItems(t *testing.T) {
	in := "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"kind\": \"ConfigMap\", \"data\": {\"a\": \"1\"}},\n    {\"kind\": \"Pod\", \"spec\": {}}\n  ]\n}\n"
	got := roundTrip(t, "l.json", in, func(n *yaml.Node) bool {
		if field(n, "kind").Value != "Pod" {
			return false
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "added"}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		return true
	})
	want := "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"kind\": \"ConfigMap\", \"data\": {\"a\": \"1\"}},\n" +
		"    {\n      \"kind\": \"Pod\",\n      \"spec\": {},\n      \"added\": true\n    }\n  ]\n}\n"
	if got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
}

// A changed YAML document keeps the spacing before its line comments, so
// comments aligned in a column stay aligned.
func TestChangedYAMLKeepsCommentSpacing(t *testing.T) {
	in := "kind: Job   # the job\nspec:\n  a: 1        # one\n  bb: 22      # two\n"
	got := roundTrip(t, "f.yaml", in, func(n *yaml.Node) bool {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "added"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "yes"})
		return true
	})
	if want := in + "added: yes\n"; got != want {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}
}
