package logstamp

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestStampsNowOrTheGivenTime(t *testing.T) {
	var buf bytes.Buffer
	zerolog.TimeFieldFormat = time.RFC3339Nano
	log := zerolog.New(&buf).Hook(Hook{}).With().Str("mode", "run").Logger()
	at := time.Date(2026, 12, 1, 9, 5, 0, 123456789, time.UTC)
	At(log.Info(), at).Str("event", "stop-sent").Msg("stop signal sent")
	before := time.Now()
	log.Info().Str("event", "cmd-exited").Msg("CMD exited")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), buf.String())
	}
	stamp := func(line []byte) time.Time {
		var fields map[string]any
		if err := json.Unmarshal(line, &fields); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		if bytes.Count(line, []byte(`"time"`)) != 1 {
			t.Fatalf("line %s: want exactly one time field", line)
		}
		got, err := time.Parse(time.RFC3339Nano, fields["time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := stamp(lines[0]); !got.Equal(at) {
		t.Errorf("stamped %v, want the given %v", got, at)
	}
	if got := stamp(lines[1]); got.Before(before.Truncate(time.Microsecond)) {
		t.Errorf("stamped %v, want now (after %v)", got, before)
	}
}

func TestAtOnADisabledLineIsANoOp(t *testing.T) {
	log := zerolog.Nop()
	At(log.Debug(), time.Now()).Msg("nothing")
}
