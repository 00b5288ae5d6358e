package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// forwardVar names an outbound route, LISTEN=TARGET (both HOST:PORT): what
// the pod's containers send to LISTEN goes to TARGET through the proxy, as
// Envoy carries a pod's outbound traffic. When the proxy exits, the route
// is gone: a container still sending through it fails.
const forwardVar = "FAKEISTIO_FORWARD"

// forwardRoute listens on the route forwardVar names, if any.
func forwardRoute() (net.Listener, string, error) {
	route := os.Getenv(forwardVar)
	if route == "" {
		return nil, "", nil
	}
	listen, target, ok := strings.Cut(route, "=")
	if !ok || listen == "" || target == "" {
		return nil, "", fmt.Errorf("%s %q: expected LISTEN=TARGET, each HOST:PORT", forwardVar, route)
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, "", err
	}
	return l, target, nil
}

// forward carries each connection l accepts to target, until l is closed.
func forward(l net.Listener, target string) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", target)
			if err != nil {
				fmt.Printf("forward to %s: %v\n", target, err)
				return
			}
			defer out.Close()
			go func() { _, _ = io.Copy(out, in) }()
			_, _ = io.Copy(in, out)
		}()
	}
}
