// Command standin plays the real programs of the examples inside the e2e
// test image: a database or mesh proxy, the main work that talks to it, an
// application that writes a log file, and the log shipper that reads it.
// Every line it prints starts with its --name, so the tests can find them in
// `podman logs`.
//
//	standin serve [--name N] [--tcp ADDR]... [--http ADDR]... [--listen-after D] [--crash-after N [--crash-code C]]
//	standin send  [--name N] ADDR LINE...
//	standin app   [--name N] --log FILE [--every D] [--lines N] [--drain N]
//	standin ship  [--name N] --from FILE [--every D] [--flush-time D]
//	standin store [--name N] --http ADDR [--put-delay D]
//	standin now
//
// Each exits (gracefully) on SIGTERM, SIGINT or SIGQUIT.
//
// serve records every TCP line it receives and answers "ok LINE"; over HTTP
// a GET answers 200 (readiness) and POST /quitquitquit makes it exit 0. It
// exits 0 on SIGTERM; with --crash-after N it exits --crash-code (3) once it
// has answered N TCP lines (a proxy that crashes under load). send dials once (no retry: a proxy that is not up yet
// is a failure, exit 1) and sends each LINE. app appends numbered lines to
// FILE, exits after --lines of them, or on SIGTERM writes --drain more (a
// graceful shutdown that still logs) and exits 0. ship follows FILE and
// prints each line as "NAME: shipped LINE"; on SIGTERM it ships what is left
// in the file and exits 0; with --flush-time it first takes that long (a
// shipper that must send its buffer to a slow backend). now prints the time
// in RFC 3339 with nanoseconds, for shell scripts that log their own events
// (busybox's date has no sub-second format). store keeps what is PUT and
// gives it back (an artifact repository: store.go).
//
// Build it static (CGO_ENABLED=0): the test image has no libc.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: standin serve|send|app|ship|store|now [flags]")
		os.Exit(2)
	}
	commands := map[string]func(args []string) int{
		"serve": serve,
		"send":  send,
		"app":   app,
		"ship":  ship,
		"now":   now,
		"store": store,
	}
	run, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "standin: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	os.Exit(run(os.Args[2:]))
}

// say prints one line to stdout, prefixed with the stand-in's name.
func say(name, format string, args ...any) {
	fmt.Printf(name+": "+format+"\n", args...)
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func terms() chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)
	return ch
}

func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	name := fs.String("name", "proxy", "name printed on every line")
	after := fs.Duration("listen-after", 0, "start listening only after this long (a slow proxy)")
	crashAfter := fs.Int("crash-after", 0, "exit once this many TCP lines were answered (0: never)")
	crashCode := fs.Int("crash-code", 3, "the exit code of --crash-after")
	var tcpAddrs, httpAddrs listFlag
	fs.Var(&tcpAddrs, "tcp", "TCP address whose lines are recorded (repeatable)")
	fs.Var(&httpAddrs, "http", "HTTP address: GET is ready, POST /quitquitquit exits (repeatable)")
	_ = fs.Parse(args)

	sigs := terms()
	quit := make(chan struct{}, 1)
	answered := crashCounter(*name, *crashAfter, *crashCode)
	say(*name, "starting")
	select {
	case <-time.After(*after):
	case sig := <-sigs:
		say(*name, "%s before listening, exiting", sig)
		return 0
	}
	for _, addr := range tcpAddrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			say(*name, "listen: %v", err)
			return 1
		}
		go acceptLines(*name, ln, answered)
		say(*name, "listening on tcp %s", addr)
	}
	srv := &http.Server{Handler: httpHandler(*name, quit)}
	for _, addr := range httpAddrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			say(*name, "listen: %v", err)
			return 1
		}
		go func() { _ = srv.Serve(ln) }()
		say(*name, "listening on http %s", addr)
	}
	select {
	case sig := <-sigs:
		say(*name, "%s, exiting", sig)
	case <-quit:
		// The 200 reaches the caller before the process goes: Shutdown
		// returns once every answer is written.
		drain, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(drain); err != nil {
			say(*name, "quit requested, answers not out: %v", err)
			return 1
		}
		say(*name, "quit requested, exiting")
	}
	return 0
}

// crashCounter returns what acceptLines calls after each answer: with
// after > 0, the after-th answer ends the process with code.
func crashCounter(name string, after, code int) func() {
	var mu sync.Mutex
	n := 0
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if n++; after > 0 && n >= after {
			say(name, "exiting %d after %d lines", code, n)
			os.Exit(code)
		}
	}
}

func acceptLines(name string, ln net.Listener, answered func()) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			lines := bufio.NewScanner(conn)
			for lines.Scan() {
				say(name, "received %q", lines.Text())
				_, _ = fmt.Fprintf(conn, "ok %s\n", lines.Text())
				answered()
			}
		}()
	}
}

func httpHandler(name string, quit chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/quitquitquit":
			say(name, "received POST /quitquitquit")
			w.WriteHeader(http.StatusOK)
			select {
			case quit <- struct{}{}:
			default:
			}
		case r.Method == http.MethodGet:
			_, _ = io.WriteString(w, "ready\n")
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
}

func send(args []string) int {
	fs := flag.NewFlagSet("send", flag.ExitOnError)
	name := fs.String("name", "main", "name printed on every line")
	_ = fs.Parse(args)
	if fs.NArg() < 1 {
		say(*name, "usage: send ADDR LINE...")
		return 2
	}
	conn, err := net.DialTimeout("tcp", fs.Arg(0), 2*time.Second)
	if err != nil {
		say(*name, "dial %s: %v", fs.Arg(0), err)
		return 1
	}
	defer conn.Close()
	replies := bufio.NewScanner(conn)
	for _, line := range fs.Args()[1:] {
		if _, err := fmt.Fprintf(conn, "%s\n", line); err != nil {
			say(*name, "send: %v", err)
			return 1
		}
		if !replies.Scan() {
			say(*name, "no reply to %q", line)
			return 1
		}
		say(*name, "sent %q, reply %q", line, replies.Text())
	}
	say(*name, "finished")
	return 0
}

func app(args []string) int {
	fs := flag.NewFlagSet("app", flag.ExitOnError)
	name := fs.String("name", "app", "name printed on every line")
	path := fs.String("log", "", "log file to append to")
	every := fs.Duration("every", 100*time.Millisecond, "time between two lines")
	lines := fs.Int("lines", 0, "exit after this many lines (0: run until SIGTERM)")
	drain := fs.Int("drain", 0, "lines still written after SIGTERM, one per --every")
	_ = fs.Parse(args)
	f, err := os.OpenFile(*path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		say(*name, "%v", err)
		return 1
	}
	defer f.Close()
	written := 0
	write := func(kind string) bool {
		written++
		// One write per line (O_APPEND): the shipper never sees half a line.
		if _, err := fmt.Fprintf(f, "%s %d\n", kind, written); err != nil {
			say(*name, "write: %v", err)
			return false
		}
		return true
	}
	sigs := terms()
	tick := time.NewTicker(*every)
	defer tick.Stop()
	say(*name, "writing to %s", *path)
	for *lines == 0 || written < *lines {
		select {
		case <-tick.C:
			if !write("line") {
				return 1
			}
		case sig := <-sigs:
			say(*name, "%s, draining %d more lines", sig, *drain)
			for range *drain {
				<-tick.C
				if !write("drain") {
					return 1
				}
			}
			say(*name, "wrote %d lines", written)
			return 0
		}
	}
	say(*name, "wrote %d lines", written)
	return 0
}

func ship(args []string) int {
	fs := flag.NewFlagSet("ship", flag.ExitOnError)
	name := fs.String("name", "shipper", "name printed on every line")
	path := fs.String("from", "", "file to follow")
	every := fs.Duration("every", 50*time.Millisecond, "how often to look for new lines")
	flushTime := fs.Duration("flush-time", 0, "how long the flush on SIGTERM takes")
	_ = fs.Parse(args)
	sigs := terms()
	tick := time.NewTicker(*every)
	defer tick.Stop()
	var (
		f       *os.File
		pending []byte // a line not complete yet
		shipped int
	)
	// readAll ships every complete line that is in the file now.
	readAll := func() {
		if f == nil {
			var err error
			if f, err = os.Open(*path); err != nil {
				return
			}
		}
		buf := make([]byte, 32*1024)
		for {
			n, err := f.Read(buf)
			pending = append(pending, buf[:n]...)
			for {
				i := bytes.IndexByte(pending, '\n')
				if i < 0 {
					break
				}
				say(*name, "shipped %q", string(pending[:i]))
				shipped++
				pending = pending[i+1:]
			}
			if n == 0 || err != nil {
				return // EOF: the rest comes at the next tick
			}
		}
	}
	say(*name, "following %s", *path)
	for {
		select {
		case <-tick.C:
			readAll()
		case sig := <-sigs:
			if *flushTime > 0 {
				say(*name, "%s, flushing for %s", sig, *flushTime)
				time.Sleep(*flushTime)
			}
			readAll()
			say(*name, "%s, flushed, %d lines shipped, exiting", sig, shipped)
			return 0
		}
	}
}

func now([]string) int {
	fmt.Println(time.Now().UTC().Format(time.RFC3339Nano))
	return 0
}
