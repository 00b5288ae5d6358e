// Command fakeistio plays Istio's two parts in the test cluster, as far as
// tandem meets them:
//
//	fakeistio inject CERT_DIR PROXY_IMAGE  a mutating webhook on :8443 that
//	    appends an istio-proxy container to each Pod, as Istio's injector
//	    does (image istio/proxyv2, args "proxy sidecar ...", its ports)
//	pilot-agent proxy sidecar ...           the proxy (the image's
//	    ENTRYPOINT): /quitquitquit on 15020, answered only for POST (405)
//	    from loopback (403), and /healthz/ready on 15020 and 15021 (503
//	    until FAKEISTIO_READY_AFTER has passed, when set); with
//	    FAKEISTIO_FORWARD=LISTEN=TARGET it carries what is sent to LISTEN
//	    on to TARGET, as Envoy carries outbound traffic; it exits 0 on
//	    the quit or SIGTERM once its answers are out
//
// Which part runs is told by the arguments, as the image is one binary.
package main

import (
	"fmt"
	"os"
	"slices"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "inject":
		err = serveInjector(os.Args[2], os.Args[3])
	case slices.Contains(os.Args[1:], "proxy"):
		err = serveProxy()
	default:
		err = fmt.Errorf("usage: fakeistio inject CERT_DIR PROXY_IMAGE | pilot-agent proxy sidecar ...; got %q", os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeistio:", err)
		os.Exit(1)
	}
}
