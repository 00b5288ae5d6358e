// Command otlpsend is the main of the loss tests (integration/k8s,
// TestLoss*): it sends numbered log records to an OpenTelemetry Collector
// over OTLP/HTTP (JSON to /v1/logs, one record a request) and appends the
// number of each one to DIR/sent before its first request and, once the
// collector acknowledged it (a 2xx answer), to DIR/acked. The tests compare
// those files, number by number, with the collector's sink.
//
//	otlpsend --url URL --dir DIR [--count N] [--every D] [--drain] [--mark-every K]
//	otlpsend --file FILE --dir DIR ...
//
// With --file it appends each record as a line "loss-record N" to FILE
// instead, for a collector that tails it: a record counts as acknowledged
// once written.
//
// Record n is sent until it is acknowledged, then n+1: a refused or failed
// request (the collector not up yet, or restarting) is retried after
// --every, as the OpenTelemetry SDKs' exporters retry. It exits 0 once
// --count records are acknowledged (0: never). On SIGTERM it exits 0, or
// with --drain keeps sending until it is killed (a main that drains for
// all the grace it is given), and appends the number acknowledged then to
// DIR/draining, which a test reads at once, without its log's delay. Every --mark-every acknowledgements, and at
// its end, it prints "otlpsend: acked N". Build it static (CGO_ENABLED=0).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:4318/v1/logs", "the collector's OTLP/HTTP logs endpoint")
	dir := flag.String("dir", ".", "directory of the files sent and acked")
	file := flag.String("file", "", "write the records as lines to this file instead")
	count := flag.Int("count", 0, "records to have acknowledged before exiting 0 (0: no end)")
	every := flag.Duration("every", 10*time.Millisecond, "pause between requests")
	drain := flag.Bool("drain", false, "on SIGTERM keep sending until killed")
	markEvery := flag.Int("mark-every", 100, "print a line every this many acknowledgements")
	flag.Parse()
	s := sender{url: *url, sent: open(*dir, "sent"), acked: open(*dir, "acked"), client: &http.Client{Timeout: 5 * time.Second}}
	if *file != "" {
		s.lines = open(filepath.Dir(*file), filepath.Base(*file))
	}
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM, syscall.SIGINT)
	for n := 1; *count == 0 || n <= *count; {
		select {
		case <-terms:
			if !*drain {
				fmt.Printf("otlpsend: SIGTERM, exiting: acked %d, failed attempts %d\n", n-1, s.failed)
				os.Exit(0)
			}
			fmt.Printf("otlpsend: SIGTERM, draining: acked %d, sending on until killed\n", n-1)
			s.note(open(*dir, "draining"), n-1)
			signal.Stop(terms)
		default:
		}
		if s.send(n) {
			if n%*markEvery == 0 {
				fmt.Printf("otlpsend: acked %d\n", n)
			}
			n++
		}
		time.Sleep(*every)
	}
	fmt.Printf("otlpsend: acked %d, failed attempts %d, done\n", *count, s.failed)
}

// open opens dir/name for appending, or exits 2.
func open(dir, name string) *os.File {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "otlpsend:", err)
		os.Exit(2)
	}
	return f
}

type sender struct {
	url    string
	lines  *os.File // --file
	sent   *os.File
	last   int // the last number written to sent
	acked  *os.File
	client *http.Client
	failed int
}

// send posts record n once; on a 2xx it appends n to the acked file and
// reports true. Both files are written with write(2): what is written
// outlives a SIGKILL of this process.
func (s *sender) send(n int) bool {
	if n > s.last {
		s.last = n
		s.note(s.sent, n)
	}
	if s.lines != nil {
		if _, err := fmt.Fprintf(s.lines, "loss-record %d\n", n); err != nil {
			fmt.Fprintln(os.Stderr, "otlpsend:", err)
			os.Exit(2)
		}
		s.note(s.acked, n)
		return true
	}
	resp, err := s.client.Post(s.url, "application/json", bytes.NewReader(record(n)))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			s.note(s.acked, n)
			return true
		}
		err = fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if s.failed++; s.failed <= 5 || s.failed%100 == 0 {
		fmt.Printf("otlpsend: record %d not acknowledged (attempt failures: %d): %v\n", n, s.failed, err)
	}
	return false
}

func (s *sender) note(f *os.File, n int) {
	if _, err := fmt.Fprintf(f, "%d\n", n); err != nil {
		fmt.Fprintln(os.Stderr, "otlpsend:", err)
		os.Exit(2)
	}
}

// record is an OTLP/JSON ExportLogsServiceRequest with one log record
// whose body is "loss-record N".
func record(n int) []byte {
	return fmt.Appendf(nil, `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"otlpsend"}}]},`+
		`"scopeLogs":[{"scope":{"name":"otlpsend"},"logRecords":[{"timeUnixNano":"%d","severityText":"INFO","body":{"stringValue":"loss-record %d"}}]}]}]}`,
		time.Now().UnixNano(), n)
}
