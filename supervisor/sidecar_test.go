package supervisor

import (
	"testing"
	"time"
)

func TestRestartBackoff(t *testing.T) {
	short := time.Second // a CMD that crashed quickly
	tests := []struct {
		name string
		runs []time.Duration
		want []time.Duration
	}{
		{
			name: "doubles up to the 60s cap",
			runs: []time.Duration{short, short, short, short, short, short, short, short},
			want: []time.Duration{1, 2, 4, 8, 16, 32, 60, 60},
		},
		{
			name: "a run of 60s starts over",
			runs: []time.Duration{short, short, short, time.Minute, short},
			want: []time.Duration{1, 2, 4, 1, 2},
		},
		{
			name: "just under 60s does not",
			runs: []time.Duration{short, short, time.Minute - time.Millisecond},
			want: []time.Duration{1, 2, 4},
		},
		{
			name: "a long first run still starts at 1s",
			runs: []time.Duration{time.Hour, short},
			want: []time.Duration{1, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b restartBackoff
			for i, ran := range tt.runs {
				if got, want := b.next(ran), tt.want[i]*time.Second; got != want {
					t.Fatalf("restart %d (after running %s): delay %s, want %s", i+1, ran, got, want)
				}
			}
		})
	}
}
