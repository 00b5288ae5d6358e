package suggest

import "testing"

// Near names the word a typo was meant to be, and none for a word that is
// nothing like any.
func TestNear(t *testing.T) {
	words := []string{"sidecars", "needs", "max-restarts", "sidecar-grace"}
	for _, tt := range []struct {
		typed, want string
		ok          bool
	}{
		{"need", "needs", true}, {"max-restart", "max-restarts", true}, {"sidecar", "sidecars", true},
		{"sidecar-grac", "sidecar-grace", true}, {"zzzzzzzz", "", false},
	} {
		got, ok := Near(tt.typed, words)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("Near(%q) = %q, %v; want %q, %v", tt.typed, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := Near("x", nil); ok {
		t.Error("Near with no words found one")
	}
}
