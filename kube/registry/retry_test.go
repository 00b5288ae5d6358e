package registry

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
)

func TestRetryable(t *testing.T) {
	get := func(err error) error { return &url.Error{Op: "Get", URL: "https://index.docker.io/v2/", Err: err} }
	dial := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: errno}}
	}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"no route to the network", get(dial(syscall.ENETUNREACH)), false},
		{"no route to the host", get(dial(syscall.EHOSTUNREACH)), false},
		{"no resolver reachable", get(&net.DNSError{Err: "dial udp 10.0.0.53:53: connect: network is unreachable", Name: "index.docker.io", IsTemporary: true}), false},
		{"no such host", get(&net.DNSError{Err: "no such host", Name: "registry.example.invalid", IsNotFound: true}), false},
		{"a resolver that timed out", get(&net.DNSError{Err: "i/o timeout", Name: "index.docker.io", IsTimeout: true, IsTemporary: true}), true},
		{"a connection reset", get(dial(syscall.ECONNRESET)), true},
		{"a body cut short", get(io.ErrUnexpectedEOF), true},
		{"refused", get(dial(syscall.ECONNREFUSED)), false},
		{"something else", fmt.Errorf("MANIFEST_UNKNOWN"), false},
	} {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("%s (%v): retryable %v; want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
