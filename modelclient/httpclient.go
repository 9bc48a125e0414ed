package modelclient

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math"
	"net/http"
	"os"
)

// NewHTTPClient returns the HTTP client every model connection uses, SSE
// and WebSocket alike, so proxies (HTTPS_PROXY, NO_PROXY) and TLS roots
// apply to both. caFile, when set, adds the PEM certificates in it to the
// system roots (which already honour SSL_CERT_FILE). The client has no
// overall timeout: streams are bounded by the idle and progress timers.
//
// Its pool keeps every connection that falls idle, for the transport's
// IdleConnTimeout (90 s), as the reference client's (hyper's) does: as
// many as were busy at once, so N requests in flight together (exec
// --batch --jobs N, or N clients of agent proxy) reuse N connections
// instead of opening new ones. Go's default kept 2 per host and closed
// the others after each request.
func NewHTTPClient(caFile string) (*http.Client, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	t.MaxIdleConns = 0 // no limit
	t.MaxIdleConnsPerHost = math.MaxInt
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("ca_certificate: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_certificate %s: no PEM certificate found", caFile)
		}
		t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: t}, nil
}
