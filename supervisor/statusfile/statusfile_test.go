package statusfile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/testkit"
)

func TestWriteStatusFileAtomic(t *testing.T) {
	// A restrictive umask must not make the files unreadable to the other
	// containers of the pod (files 0644, directories 0755).
	old := unix.Umask(0o077)
	defer unix.Umask(old)

	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "done")
	when := time.Date(2026, 11, 30, 6, 22, 52, 258974522, time.UTC)
	want := File{Name: "main", Event: EventDone, ExitCode: 3, Reason: ReasonExited, Host: "export-7xk2p", Time: when}
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	// Overwriting is the same rename: never a partial file.
	want.ExitCode = 0
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "a", "b")} {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm != 0o755 {
			t.Errorf("%s created with mode %o, want 755", d, perm)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o644 {
		t.Errorf("done file mode %o, want 644", perm)
	}
	testkit.OnlyEntry(t, filepath.Dir(path), "done")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte("\n")) != 1 || !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("done file is not one line: %q", data)
	}
	const wantLine = `{"version":1,"name":"main","event":"done","exitCode":0,"signal":"","reason":"exited","host":"export-7xk2p","time":"2026-11-30T06:22:52.258974522Z"}` + "\n"
	if string(data) != wantLine {
		t.Errorf("done file:\n got %s want %s", data, wantLine)
	}
	got, present, err := Read(path)
	if err != nil || !present || got == nil {
		t.Fatalf("ReadStatusFile = %v, %v, %v", got, present, err)
	}
	want.Version = 1
	if *got != want {
		t.Errorf("read back %+v, want %+v", *got, want)
	}
}

// Without a Host, the writer's hostname goes in: the pod's, which its
// containers share.
func TestWriteStatusFileHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	if err := Write(path, File{Event: EventDone}); err != nil {
		t.Fatal(err)
	}
	got, _, err := Read(path)
	if err != nil || got == nil {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if want, _ := os.Hostname(); got.Host != want || want == "" {
		t.Errorf("host %q, want this machine's %q", got.Host, want)
	}
}

func TestWriteStatusFileFailsLoudly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The directory cannot be created: a regular file is in the way.
	err := Write(filepath.Join(blocker, "done"), File{Event: EventDone})
	if err == nil || !strings.Contains(err.Error(), blocker) {
		t.Fatalf("WriteStatusFile under a file = %v; want an error naming %s", err, blocker)
	}
}

func TestReadStatusFile(t *testing.T) {
	valid := `{"version":1,"name":"main","event":"done","exitCode":2,"signal":"","reason":"exited","time":"2026-11-30T06:22:52Z"}`
	tests := []struct {
		name        string
		setup       func(t *testing.T, path string)
		wantPresent bool
		wantParsed  bool
		wantCode    int
		wantErr     bool
	}{
		{name: "missing", setup: func(*testing.T, string) {}, wantPresent: false},
		{name: "touched empty file", setup: writeContent(""), wantPresent: true},
		{name: "valid line", setup: writeContent(valid + "\n"), wantPresent: true, wantParsed: true, wantCode: 2},
		{name: "valid line without newline", setup: writeContent(valid), wantPresent: true, wantParsed: true, wantCode: 2},
		{name: "valid line then more lines", setup: writeContent(valid + "\nnot json\n"), wantPresent: true, wantParsed: true, wantCode: 2},
		{name: "garbage", setup: writeContent("\x00\xff{{{ not json"), wantPresent: true},
		{name: "plain text", setup: writeContent("done\n"), wantPresent: true},
		{name: "json of another writer", setup: writeContent(`{"status":"ok"}` + "\n"), wantPresent: true},
		{name: "version 0", setup: writeContent(`{"version":0,"event":"done"}`), wantPresent: true},
		{name: "no event", setup: writeContent(`{"version":1}`), wantPresent: true},
		{name: "json array", setup: writeContent(`[1,2,3]`), wantPresent: true},
		{name: "first line over 64 KiB", setup: writeContent(`{"version":1,"event":"done","name":"` + strings.Repeat("x", 70<<10) + `"}`), wantPresent: true},
		{name: "valid line then 1 MiB", setup: writeContent(valid + "\n" + strings.Repeat("y", 1<<20)), wantPresent: true, wantParsed: true, wantCode: 2},
		{name: "directory", setup: func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, wantPresent: true, wantErr: true},
		{name: "named pipe", setup: func(t *testing.T, path string) {
			// Opening a FIFO for reading blocks until a writer comes: a done
			// file that is one must not hang tandem.
			if err := unix.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, wantPresent: true, wantErr: true},
		{name: "dangling symlink", setup: func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(filepath.Dir(path), "nowhere"), path); err != nil {
				t.Fatal(err)
			}
		}, wantPresent: false},
		{name: "symlink to a valid file", setup: func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "real")
			writeContent(valid)(t, target)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, wantPresent: true, wantParsed: true, wantCode: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "done")
			tt.setup(t, path)
			got, present, err := readBounded(t, path)
			if present != tt.wantPresent || (err != nil) != tt.wantErr || (got != nil) != tt.wantParsed {
				t.Fatalf("ReadStatusFile = %+v, present %v, err %v; want parsed %v, present %v, err %v",
					got, present, err, tt.wantParsed, tt.wantPresent, tt.wantErr)
			}
			if got != nil && got.ExitCode != tt.wantCode {
				t.Errorf("exit code %d, want %d", got.ExitCode, tt.wantCode)
			}
			if got != nil && got.Version < 1 {
				t.Errorf("parsed a status with version %d", got.Version)
			}
		})
	}
}

// readBounded fails the test instead of hanging it.
func readBounded(t *testing.T, path string) (*File, bool, error) {
	t.Helper()
	type result struct {
		f       *File
		present bool
		err     error
	}
	results := make(chan result, 1)
	go func() {
		f, present, err := Read(path)
		results <- result{f, present, err}
	}()
	select {
	case r := <-results:
		return r.f, r.present, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Read(%s) did not return", path)
		return nil, false, nil
	}
}

func TestReadStatusFileUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a mode 000 file anyway; integration/fault_donefile_test.go covers it as uid 65534")
	}
	path := filepath.Join(t.TempDir(), "done")
	if err := os.WriteFile(path, []byte("{}"), 0o000); err != nil {
		t.Fatal(err)
	}
	got, present, err := Read(path)
	if got != nil || !present || err == nil {
		t.Fatalf("Read(mode 000) = %v, %v, %v; want present, unknown, with the error", got, present, err)
	}
}

// Something other than a regular file is said as a person reads it: what
// it is, its permissions in octal, its owner, and who tandem runs as.
func TestReadStatusFileNotRegularSaysWhat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	_, present, err := Read(path)
	want := path + " is a directory, not a regular file (mode 0750, owner uid " + strconv.Itoa(os.Geteuid()) +
		"; tandem runs as uid " + strconv.Itoa(os.Geteuid())
	if !present || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Read(directory) = present %v, err %v; want present and an error starting %q", present, err, want)
	}
}

// A multi-GB (sparse) done file is read no further than 64 KiB.
func TestReadStatusFileBoundedMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		f.Close()
		t.Skipf("cannot make a sparse file here: %v", err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, present, err := Read(path)
	runtime.ReadMemStats(&after)
	if got != nil || !present || err != nil {
		t.Fatalf("Read(8 GiB of zeros) = %v, %v, %v; want present, unknown", got, present, err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
		t.Errorf("reading the done file allocated %d bytes; the read must stop at 64 KiB", allocated)
	}
}

func TestParseStatusFile(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"version":1,"event":"done"}`, true},
		{`{"version":2,"event":"ready"}`, true},         // a newer writer: still a status
		{`{"version":1,"event":"done"}` + "\r\n", true}, // JSON allows the \r
		{`{"version":-1,"event":"done"}`, false},
		{`{"version":"1","event":"done"}`, false},
		{`{"version":1,"event":""}`, false},
		{`null`, false},
		{``, false},
		{"\n" + `{"version":1,"event":"done"}`, false}, // only the first line counts
	}
	for _, tt := range tests {
		got := Parse([]byte(tt.in))
		if (got != nil) != tt.want {
			t.Errorf("Parse(%q) = %+v, want parsed %v", tt.in, got, tt.want)
		}
	}
}

func TestStatusSucceeded(t *testing.T) {
	var unknown *File
	if !unknown.Succeeded() {
		t.Error("an unknown status must count as success")
	}
	if !(&File{ExitCode: 0}).Succeeded() || (&File{ExitCode: 1}).Succeeded() {
		t.Error("Succeeded must follow the exit code")
	}
}

func writeContent(content string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
