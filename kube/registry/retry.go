package registry

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// retryOption retries what go-containerregistry retries (its default
// predicate, rewritten here because it is not exported) except what a
// few seconds' wait never cures: no route to the network or the host, a
// name that does not exist. Offline, each lookup otherwise spent 4 s in
// its backoff before saying what a user can already act on.
var retryOption = remote.WithRetryPredicate(retryable)

func retryable(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || unreachable(err) {
		return false
	}
	var temporary interface{ Temporary() bool }
	if errors.As(err, &temporary) && temporary.Temporary() {
		return true
	}
	for _, transient := range []error{io.ErrUnexpectedEOF, io.EOF, syscall.EPIPE, syscall.ECONNRESET, net.ErrClosed} {
		if errors.Is(err, transient) {
			return true
		}
	}
	return false
}

// unreachable says that err is the machine's having no way there.
func unreachable(err error) bool {
	if errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH) {
		return true
	}
	var dns *net.DNSError
	if !errors.As(err, &dns) || dns.IsTimeout {
		return false
	}
	// A resolver it cannot reach is reported as a temporary DNS error
	// whose cause survives only as text.
	return dns.IsNotFound || strings.HasSuffix(dns.Err, syscall.ENETUNREACH.Error()) || strings.HasSuffix(dns.Err, syscall.EHOSTUNREACH.Error())
}
