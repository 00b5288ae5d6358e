package signals

import (
	"strconv"
	"testing"

	"github.com/tandem-sh/tandem/internal/testkit"
)

// Native fuzz targets for what tandem parses from users, files and other
// processes. `make fuzz` runs each; a crasher becomes a seed under
// testdata/fuzz and a case in the matching table test.

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"TERM", "SIGTERM", "term", "15", "SIG34", "64", "0", "32", "65", "", "SIG", "+9", " usr2 ", "sigrtmin"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := Parse(s)
		if testkit.Rejected(t, err, s) {
			return
		}
		if sig < 1 || sig > lastSignal || sig == 32 || sig == 33 {
			t.Fatalf("Parse(%q) = %d, outside 1..64 or glibc's 32/33", s, sig)
		}
		// The name tandem logs and writes reads back as the same signal,
		// and so does the number.
		name := Name(sig)
		if again, err := Parse(name); err != nil || again != sig {
			t.Fatalf("Parse(%q) = %d; its name %q re-parses as %d, %v", s, sig, name, again, err)
		}
		if again, err := Parse(strconv.Itoa(int(sig))); err != nil || again != sig {
			t.Fatalf("Parse(%q) = %d; its number re-parses as %d, %v", s, sig, again, err)
		}
	})
}

func FuzzParseRewrite(f *testing.F) {
	for _, seed := range []string{"TERM:QUIT", "15:3", "KILL:TERM", "TERM", ":", "TERM:", "a:b:c", "SIG40:SIG41", "URG:TERM", "HUP:0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := ParseRewrite(s)
		if testkit.Rejected(t, err, s) {
			return
		}
		if !Forwardable(from) {
			t.Fatalf("ParseRewrite(%q): FROM %s is never forwarded", s, Name(from))
		}
		toName := "0"
		if to != Drop {
			if to < 1 || to > lastSignal || to == 32 || to == 33 {
				t.Fatalf("ParseRewrite(%q): TO %d out of range", s, to)
			}
			toName = Name(to)
		}
		again := Name(from) + ":" + toName
		if f2, t2, err := ParseRewrite(again); err != nil || f2 != from || t2 != to {
			t.Fatalf("ParseRewrite(%q) = %d:%d; %q re-parses as %d:%d, %v", s, from, to, again, f2, t2, err)
		}
	})
}
