package statusfile

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fastParseSeeds: what parseFast takes, and the edges where it must hand
// over to encoding/json.
var fastParseSeeds = []string{
	`{"version":1,"name":"job","event":"done","exitCode":0,"signal":"","reason":"exited","host":"pod-1","time":"2026-12-01T17:34:00.123456789Z"}`,
	` { "version" : 1 , "event" : "done" , "time" : "2026-12-01T17:34:00+02:00" } `,
	`{"version":1,"event":"done","exitCode":-0}`,
	`{"version":1,"event":"done","exitCode":01}`,
	`{"version":1,"event":"done","exitCode":1e2}`,
	`{"version":1,"event":"done","exitCode":99999999999999999999}`,
	`{"Version":1,"event":"done"}`,
	`{"version":1,"event":"done","name":"a\"b"}`,
	`{"version":1,"event":"done","name":"\xff"}`,
	`{"version":1,"event":"done","time":null}`,
	`{"version":1,"event":"done","time":"2026-13-01T00:00:00Z"}`,
	`{"version":1,"event":"done","extra":true}`,
	`{"version":1,"event":"done"} trailing`,
	`{"version":1,"event":"done","version":2}`,
	`{}`,
}

// Every seed parses through Parse exactly as through encoding/json alone.
func TestParseFastAgreesWithJSON(t *testing.T) {
	for _, seed := range fastParseSeeds {
		var want File
		wantOK := json.Unmarshal([]byte(seed), &want) == nil && want.Version >= 1 && want.Event != ""
		got := Parse([]byte(seed))
		if (got != nil) != wantOK || (got != nil && !reflect.DeepEqual(*got, want)) {
			t.Errorf("Parse(%q) = %+v; encoding/json alone: %+v (accepted %v)", seed, got, want, wantOK)
		}
	}
	if _, ok := parseFast([]byte(fastParseSeeds[0])); !ok {
		t.Errorf("parseFast refused the line tandem writes: %s", fastParseSeeds[0])
	}
}
