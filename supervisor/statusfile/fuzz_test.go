package statusfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Native fuzz targets for what tandem parses from users, files and other
// processes. `make fuzz` runs each; a crasher becomes a seed under
// testdata/fuzz and a case in the matching table test.

// FuzzParseStatusFile: no panic, never a status with version < 1 or no
// event, and whatever is accepted is written back (as Write does)
// as one line that parses as the same status.
func FuzzParseStatusFile(f *testing.F) {
	for _, seed := range statusFileSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parsed := Parse(data)
		if parsed == nil {
			return
		}
		if parsed.Version < 1 || parsed.Event == "" {
			t.Fatalf("Parse(%q) = %+v: version < 1 or no event", data, parsed)
		}
		want := *parsed
		want.Version = statusFileVersion // the writer's version, whatever was read
		line, err := json.Marshal(want)
		if err != nil {
			return // a time JSON cannot hold: Write returns this error
		}
		if bytes.ContainsAny(line, "\r\n") {
			t.Fatalf("status %+v marshals to more than one line: %q", want, line)
		}
		again := Parse(append(line, '\n'))
		if again == nil || again.Name != want.Name || again.Event != want.Event || again.ExitCode != want.ExitCode ||
			again.Signal != want.Signal || again.Reason != want.Reason || again.Version != want.Version || !again.Time.Equal(want.Time) {
			t.Fatalf("round trip of %q: wrote %s, read %+v", data, line, again)
		}
	})
}

// FuzzReadStatusFile: a file of any content reads as present, without an
// error, as Parse of its first 64 KiB; what was accepted is
// written by Write and read back the same.
func FuzzReadStatusFile(f *testing.F) {
	for _, seed := range statusFileSeeds {
		f.Add([]byte(seed))
	}
	f.Add(append([]byte(statusFileSeeds[0]), bytes.Repeat([]byte("x"), maxStatusFileRead)...))
	// One directory per worker: a t.TempDir per input would make file
	// system work, not reading, the bottleneck.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		want := Parse(data[:min(len(data), maxStatusFileRead)])
		checkRead(t, dir, data, want)
		if want == nil {
			return
		}
		path := filepath.Join(dir, "written")
		if err := Write(path, *want); err != nil {
			if _, marshalErr := json.Marshal(want); marshalErr != nil {
				return // e.g. a time JSON cannot hold; Write said so
			}
			t.Fatalf("Write(%+v): %v", want, err)
		}
		again, present, err := Read(path)
		if err != nil || !present || again == nil || again.ExitCode != want.ExitCode || again.Name != want.Name ||
			again.Event != want.Event || again.Version != statusFileVersion {
			t.Fatalf("ReadStatusFile of what was written for %+v = %+v, %v, %v", want, again, present, err)
		}
	})
}

// checkRead: Read of data agrees with Parse.
func checkRead(t *testing.T, dir string, data []byte, want *File) {
	t.Helper()
	path := filepath.Join(dir, "done")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, present, err := Read(path)
	if err != nil || !present || !reflect.DeepEqual(got, want) {
		t.Fatalf("Read(%q) = %+v, %v, %v; want %+v, present", data, got, present, err, want)
	}
}

var statusFileSeeds = []string{
	`{"version":1,"name":"main","event":"done","exitCode":0,"signal":"","reason":"exited","time":"2026-11-30T06:22:52.258974522Z"}` + "\n",
	`{"version":1,"event":"ready","reason":"ready"}`,
	`{"version":0,"event":"done"}`, `{"version":1}`, "", "\n", "garbage", `{"version":1,"event":"done","time":"2026-11-30T06:22:52+14:00"}`,
	`{"version":1e0,"event":"done"}`, `{"version":1,"event":"done","exitCode":-5}`, "{\"version\":1,\"event\":\"d\\n\"}",
}
