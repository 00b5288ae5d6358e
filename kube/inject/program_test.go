package inject

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// The images and lists of TestProgramMergesAsKubernetes.
var (
	imageEntrypointOnly = ImageConfig{Entrypoint: []string{"/ep"}}
	imageCmdOnly        = ImageConfig{Cmd: []string{"/cmd", "c1"}}
	imageBoth           = ImageConfig{Entrypoint: []string{"/ep", "e1"}, Cmd: []string{"c1"}}
	absentList          []string
	emptyList           = []string{}
	manifestCommand     = []string{"/command", "x"}
	manifestArgs        = []string{"a1", "a2"}
)

var mergeCases = []struct {
	name          string
	image         ImageConfig
	command, args []string
	want          []string
}{
	{"entrypoint only, no command, no args", imageEntrypointOnly, absentList, absentList, []string{"/ep"}},
	{"entrypoint only, no command, empty args", imageEntrypointOnly, absentList, emptyList, []string{"/ep"}},
	{"entrypoint only, no command, args", imageEntrypointOnly, absentList, manifestArgs, []string{"/ep", "a1", "a2"}},
	{"entrypoint only, empty command, no args", imageEntrypointOnly, emptyList, absentList, []string{"/ep"}},
	{"entrypoint only, empty command, empty args", imageEntrypointOnly, emptyList, emptyList, []string{"/ep"}},
	{"entrypoint only, empty command, args", imageEntrypointOnly, emptyList, manifestArgs, []string{"/ep", "a1", "a2"}},
	{"entrypoint only, command, no args", imageEntrypointOnly, manifestCommand, absentList, []string{"/command", "x"}},
	{"entrypoint only, command, empty args", imageEntrypointOnly, manifestCommand, emptyList, []string{"/command", "x"}},
	{"entrypoint only, command, args", imageEntrypointOnly, manifestCommand, manifestArgs, []string{"/command", "x", "a1", "a2"}},

	{"cmd only, no command, no args", imageCmdOnly, absentList, absentList, []string{"/cmd", "c1"}},
	{"cmd only, no command, empty args", imageCmdOnly, absentList, emptyList, []string{"/cmd", "c1"}},
	{"cmd only, no command, args", imageCmdOnly, absentList, manifestArgs, []string{"a1", "a2"}},
	{"cmd only, empty command, no args", imageCmdOnly, emptyList, absentList, []string{"/cmd", "c1"}},
	{"cmd only, empty command, empty args", imageCmdOnly, emptyList, emptyList, []string{"/cmd", "c1"}},
	{"cmd only, empty command, args", imageCmdOnly, emptyList, manifestArgs, []string{"a1", "a2"}},
	{"cmd only, command, no args", imageCmdOnly, manifestCommand, absentList, []string{"/command", "x"}},
	{"cmd only, command, empty args", imageCmdOnly, manifestCommand, emptyList, []string{"/command", "x"}},
	{"cmd only, command, args", imageCmdOnly, manifestCommand, manifestArgs, []string{"/command", "x", "a1", "a2"}},

	{"both, no command, no args", imageBoth, absentList, absentList, []string{"/ep", "e1", "c1"}},
	{"both, no command, empty args", imageBoth, absentList, emptyList, []string{"/ep", "e1", "c1"}},
	{"both, no command, args", imageBoth, absentList, manifestArgs, []string{"/ep", "e1", "a1", "a2"}},
	{"both, empty command, no args", imageBoth, emptyList, absentList, []string{"/ep", "e1", "c1"}},
	{"both, empty command, empty args", imageBoth, emptyList, emptyList, []string{"/ep", "e1", "c1"}},
	{"both, empty command, args", imageBoth, emptyList, manifestArgs, []string{"/ep", "e1", "a1", "a2"}},
	{"both, command, no args", imageBoth, manifestCommand, absentList, []string{"/command", "x"}},
	{"both, command, empty args", imageBoth, manifestCommand, emptyList, []string{"/command", "x"}},
	{"both, command, args", imageBoth, manifestCommand, manifestArgs, []string{"/command", "x", "a1", "a2"}},
}

// Every combination of what the image says (ENTRYPOINT only, CMD only,
// both) and what the container says (command absent, empty, set × args
// absent, empty, set), with what Kubernetes runs. An empty list counts as
// absent: the runtime receives it as no list at all.
func TestProgramMergesAsKubernetes(t *testing.T) {
	for _, tt := range mergeCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := Program(tt.command, tt.args, tt.image); !slices.Equal(got, tt.want) {
				t.Errorf("Program = %q; want %q", got, tt.want)
			}
			// The node that becomes the args says the same, and only the
			// image's items are escaped for $(VAR) expansion.
			got, _ := yamlnode.StringsOf(programNode(seqOrNil(tt.command), seqOrNil(tt.args), tt.image))
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
	return yamlnode.StringSeq(items)
}

// Kubernetes expands $(VAR) in args but never in the image's ENTRYPOINT
// and CMD, so those are escaped when they move to args; the manifest's own
// items, already subject to expansion, are kept as written.
func TestProgramNodeEscapesTheImage(t *testing.T) {
	image := ImageConfig{Entrypoint: []string{"sh", "-c"}, Cmd: []string{"echo $(HOME) $$ $HOME cost$"}}
	got, _ := yamlnode.StringsOf(programNode(nil, nil, image))
	want := []string{"sh", "-c", "echo $$(HOME) $$$ $HOME cost$"}
	if !slices.Equal(got, want) {
		t.Errorf("from the image: %q; want %q", got, want)
	}
	got, _ = yamlnode.StringsOf(programNode(yamlnode.StringSeq([]string{"echo", "$(HOME)"}), nil, image))
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

// signalName writes what tandem's --termination-signal accepts, realtime
// signals by the number the runtime sends, and refuses what tandem would
// refuse at the container's start.
func TestSignalName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "TERM"}, {"SIGTERM", "TERM"}, {"15", "TERM"}, {"term", "TERM"},
		{"SIGQUIT", "QUIT"}, {"QUIT", "QUIT"}, {"3", "QUIT"}, {"SIGWINCH", "WINCH"},
		{"SIGRTMIN+3", "37"}, {"RTMIN+1", "35"}, {"RTMAX-1", "63"}, {"SIGRTMAX", "64"}, {"40", "40"},
	}
	for _, tt := range tests {
		got, err := signalName(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("signalName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		if _, err := cmdline.SignalKind.Parse(got); err != nil {
			t.Errorf("signalName(%q) = %q, which tandem refuses: %v", tt.in, got, err)
		}
	}
	for _, bad := range []string{"0", "99", "SIG", "QU IT", "BOGUS", "SIGBOGUS", "KILL", "SIGSTOP", "9", "32", "RTMIN+31", "RTMAX-31", "RTMIN-1", "RTMINX", "SIGRTMIN"} {
		if got, err := signalName(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("signalName(%q) = %q, %v; want an error naming it", bad, got, err)
		}
	}
}
