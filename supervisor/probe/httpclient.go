package probe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Target is a parsed plain-http URL. tandem speaks just enough HTTP/1.1
// for quit and readiness endpoints: net/http would add ~3.7 MB of TLS and
// HTTP/2 to a binary that must stay small.
type Target struct {
	raw      string
	hostPort string
	host     string
	path     string
}

// String is the URL as the user gave it.
func (t Target) String() string { return t.raw }

func ParseURL(raw string) (Target, error) {
	if strings.HasPrefix(strings.ToLower(raw), "https://") {
		return Target{}, fmt.Errorf("%q: https is not supported (tandem stays small and has no TLS); "+
			"use exec: with the image's own client, e.g. exec:wget -q -O /dev/null %s", raw, raw)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return Target{}, fmt.Errorf("%q: expected http://HOST[:PORT]/PATH", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Target{}, fmt.Errorf("%q: port %q is not a number from 1 to 65535", raw, port)
	}
	// url.Parse lets through hosts that no dial accepts ("http://]"), that
	// dial this machine by accident ("http://:80"), or, in an IPv6 zone, any
	// percent-decoded byte ("[::1%25%0d%0aX:%20y]" would add a header line
	// to the request): a malformed URL must be a usage error before anything
	// starts, not a failure at every try.
	hostPort := net.JoinHostPort(u.Hostname(), port)
	if _, _, err := net.SplitHostPort(hostPort); err != nil || u.Hostname() == "" ||
		strings.ContainsFunc(u.Host, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return Target{}, fmt.Errorf("%q: host %q is not a host name or IP address; expected http://HOST[:PORT]/PATH", raw, u.Hostname())
	}
	// url.Parse keeps a query's spaces as they were typed, and a space in
	// the request target would split the request line: escape them, as a
	// browser does.
	path := strings.ReplaceAll(u.RequestURI(), " ", "%20")
	return Target{raw: raw, hostPort: hostPort, host: u.Host, path: path}, nil
}

// ErrNoAnswer: the server took the request, then closed the connection
// without a status line. A quit endpoint does so when its program exits
// before it answers (cloud-sql-proxy does): the request reached it.
var ErrNoAnswer = errors.New("the connection closed after the request, with no answer")

// maxHTTPResponseRead bounds what is read of an answer (a hostile server must not make tandem allocate without bound).
const maxHTTPResponseRead = 64 << 10

// Request sends one request with Connection: close and returns the status
// code. The whole exchange is bounded by timeout.
func Request(ctx context.Context, method string, t Target, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", t.hostPort)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) }) // best effort: the read below fails either way
	defer stop()
	if err := conn.SetDeadline(deadline); err != nil {
		return 0, err
	}
	request := method + " " + t.path + " HTTP/1.1\r\nHost: " + t.host +
		"\r\nUser-Agent: tandem\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	if err := writeNoSigpipe(conn, []byte(request)); err != nil {
		return 0, err
	}
	// textproto keeps reading until a line ends: a server that streams
	// without one would make tandem allocate until the deadline (gigabytes
	// on loopback). The status line and headers fit in 64 KiB.
	reader := textproto.NewReader(bufio.NewReader(io.LimitReader(conn, maxHTTPResponseRead)))
	statusLine, err := reader.ReadLine()
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return 0, ErrNoAnswer
	}
	if err != nil {
		return 0, fmt.Errorf("read status line: %w", err)
	}
	proto, rest, _ := strings.Cut(statusLine, " ")
	codeText, _, _ := strings.Cut(rest, " ")
	code, err := strconv.Atoi(codeText)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil || code < 100 || code > 999 {
		return 0, fmt.Errorf("malformed status line %q", statusLine)
	}
	// Headers are read so a server that resets on an unread request does not
	// race us; their content is not needed.
	_, _ = reader.ReadMIMEHeader()
	return code, nil
}
