package inject

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every combination of what the image says (ENTRYPOINT only, CMD only,
// both) and what the container says (command absent, empty, set × args
// absent, empty, set), with what Kubernetes runs. An empty list counts as
// absent: the runtime receives it as no list at all.
func TestProgramMergesAsKubernetes(t *testing.T) {
	var (
		entrypointOnly = ImageConfig{Entrypoint: []string{"/ep"}}
		cmdOnly        = ImageConfig{Cmd: []string{"/cmd", "c1"}}
		both           = ImageConfig{Entrypoint: []string{"/ep", "e1"}, Cmd: []string{"c1"}}
		absent         []string
		empty          = []string{}
		command        = []string{"/command", "x"}
		args           = []string{"a1", "a2"}
	)
	tests := []struct {
		name          string
		image         ImageConfig
		command, args []string
		want          []string
	}{
		{"entrypoint only, no command, no args", entrypointOnly, absent, absent, []string{"/ep"}},
		{"entrypoint only, no command, empty args", entrypointOnly, absent, empty, []string{"/ep"}},
		{"entrypoint only, no command, args", entrypointOnly, absent, args, []string{"/ep", "a1", "a2"}},
		{"entrypoint only, empty command, no args", entrypointOnly, empty, absent, []string{"/ep"}},
		{"entrypoint only, empty command, empty args", entrypointOnly, empty, empty, []string{"/ep"}},
		{"entrypoint only, empty command, args", entrypointOnly, empty, args, []string{"/ep", "a1", "a2"}},
		{"entrypoint only, command, no args", entrypointOnly, command, absent, []string{"/command", "x"}},
		{"entrypoint only, command, empty args", entrypointOnly, command, empty, []string{"/command", "x"}},
		{"entrypoint only, command, args", entrypointOnly, command, args, []string{"/command", "x", "a1", "a2"}},

		{"cmd only, no command, no args", cmdOnly, absent, absent, []string{"/cmd", "c1"}},
		{"cmd only, no command, empty args", cmdOnly, absent, empty, []string{"/cmd", "c1"}},
		{"cmd only, no command, args", cmdOnly, absent, args, []string{"a1", "a2"}},
		{"cmd only, empty command, no args", cmdOnly, empty, absent, []string{"/cmd", "c1"}},
		{"cmd only, empty command, empty args", cmdOnly, empty, empty, []string{"/cmd", "c1"}},
		{"cmd only, empty command, args", cmdOnly, empty, args, []string{"a1", "a2"}},
		{"cmd only, command, no args", cmdOnly, command, absent, []string{"/command", "x"}},
		{"cmd only, command, empty args", cmdOnly, command, empty, []string{"/command", "x"}},
		{"cmd only, command, args", cmdOnly, command, args, []string{"/command", "x", "a1", "a2"}},

		{"both, no command, no args", both, absent, absent, []string{"/ep", "e1", "c1"}},
		{"both, no command, empty args", both, absent, empty, []string{"/ep", "e1", "c1"}},
		{"both, no command, args", both, absent, args, []string{"/ep", "e1", "a1", "a2"}},
		{"both, empty command, no args", both, empty, absent, []string{"/ep", "e1", "c1"}},
		{"both, empty command, empty args", both, empty, empty, []string{"/ep", "e1", "c1"}},
		{"both, empty command, args", both, empty, args, []string{"/ep", "e1", "a1", "a2"}},
		{"both, command, no args", both, command, absent, []string{"/command", "x"}},
		{"both, command, empty args", both, command, empty, []string{"/command", "x"}},
		{"both, command, args", both, command, args, []string{"/command", "x", "a1", "a2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Program(tt.command, tt.args, tt.image); !slices.Equal(got, tt.want) {
				t.Errorf("Program = %q; want %q", got, tt.want)
			}
			// The node that becomes the args says the same, and only the
			// image's items are escaped for $(VAR) expansion.
			got, _ := stringsOf(programNode(seqOrNil(tt.command), seqOrNil(tt.args), tt.image))
			if !slices.Equal(got, tt.want) {
				t.Errorf("programNode = %q; want %q", got, tt.want)
			}
			if needsImage(tt.command) != (len(tt.command) == 0) {
				t.Errorf("needsImage(%q) = %v", tt.command, needsImage(tt.command))
			}
		})
	}
}

func seqOrNil(items []string) *yaml.Node {
	if items == nil {
		return nil
	}
	return stringSeq(items)
}

// Kubernetes expands $(VAR) in args but never in the image's ENTRYPOINT
// and CMD, so those are escaped when they move to args; the manifest's own
// items, already subject to expansion, are kept as written.
func TestProgramNodeEscapesTheImage(t *testing.T) {
	image := ImageConfig{Entrypoint: []string{"sh", "-c"}, Cmd: []string{"echo $(HOME) $$ $HOME cost$"}}
	got, _ := stringsOf(programNode(nil, nil, image))
	want := []string{"sh", "-c", "echo $$(HOME) $$$ $HOME cost$"}
	if !slices.Equal(got, want) {
		t.Errorf("from the image: %q; want %q", got, want)
	}
	got, _ = stringsOf(programNode(stringSeq([]string{"echo", "$(HOME)"}), nil, image))
	if want := []string{"echo", "$(HOME)"}; !slices.Equal(got, want) {
		t.Errorf("from the manifest: %q; want %q", got, want)
	}
}

// Whatever the string, Kubernetes' expansion of the escaped string gives
// it back, even with every variable defined.
func TestEscapeExpansionRoundTrips(t *testing.T) {
	for _, s := range []string{"", "$", "$$", "$$$", "$(", "$(A)", "$$(A)", "a$(B)c$", "$x$(y", "(($$))", "$)$("} {
		if got := kubernetesExpand(escapeExpansion(s)); got != s {
			t.Errorf("expand(escape(%q)) = %q (escaped %q)", s, got, escapeExpansion(s))
		}
	}
}

// kubernetesExpand is Kubernetes' $(VAR) expansion (third_party/forked/
// golang/expansion) with every variable defined as "VALUE".
func kubernetesExpand(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch next := s[i+1]; {
		case next == '$':
			b.WriteByte('$')
			i++
		case next == '(':
			if end := strings.IndexByte(s[i+2:], ')'); end >= 0 {
				b.WriteString("VALUE")
				i += 2 + end
			} else {
				b.WriteString("$(")
				i++
			}
		default:
			b.WriteByte('$')
			b.WriteByte(next)
			i++
		}
	}
	return b.String()
}

func TestSignalName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "TERM"}, {"SIGTERM", "TERM"}, {"15", "TERM"}, {"term", "TERM"},
		{"SIGQUIT", "QUIT"}, {"QUIT", "QUIT"}, {"3", "3"}, {"SIGRTMIN+3", "RTMIN+3"},
	}
	for _, tt := range tests {
		if got, err := signalName(tt.in); err != nil || got != tt.want {
			t.Errorf("signalName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"0", "99", "SIG", "QU IT"} {
		if got, err := signalName(bad); err == nil {
			t.Errorf("signalName(%q) = %q; want an error", bad, got)
		}
	}
}
