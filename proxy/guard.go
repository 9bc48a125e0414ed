package proxy

import (
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
)

// refuse answers a request that did not come from a client of this
// machine, or may not have: it writes the refusal and reports true. A
// page in a browser can reach a loopback proxy in two ways, both refused
// before anything is forwarded: by DNS rebinding, where its own host name
// resolves to 127.0.0.1, so the request's Host is that name (421
// Misdirected Request unless Host is a loopback name with the port the
// request came in on, or [Options].AllowRemote is set); and by a
// cross-origin request, which always carries Origin (403: no API client
// sends it).
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request) bool {
	res := &result{}
	switch {
	case !p.opts.AllowRemote && !loopbackHost(r):
		res.status = http.StatusMisdirectedRequest
		p.opts.Logger.Warn("REFUSED", "method", r.Method, "path", r.URL.Path, "status", res.status, "reason", "host")
		writeError(w, res, "invalid_request_error", "host_not_allowed",
			"agent proxy: the Host header must name this machine's loopback address with the proxy's port (a request through another name may come from a web page)")
		return true
	case len(r.Header.Values("Origin")) > 0:
		res.status = http.StatusForbidden
		p.opts.Logger.Warn("REFUSED", "method", r.Method, "path", r.URL.Path, "status", res.status, "reason", "origin")
		writeError(w, res, "invalid_request_error", "origin_not_allowed",
			"agent proxy: requests from web pages (with an Origin header) are refused")
		return true
	}
	return false
}

// loopbackHost reports whether r's Host is localhost or a loopback
// address, with the port of the connection it came in on (80 when Host
// names none).
func loopbackHost(r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
		if err != nil || !a.IsLoopback() {
			return false
		}
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	_, localPort, err := net.SplitHostPort(local.String())
	return err == nil && port == localPort
}

// cleanPath normalises r's path in place ("/v1/../x" is "/x", "//" one
// slash, escaped dots and slashes decoded first), so what is routed, and
// decides whether the provider's headers are added, is what goes upstream.
func cleanPath(r *http.Request) {
	p := path.Clean("/" + r.URL.Path)
	r.URL.Path, r.URL.RawPath = p, ""
}

// apiPath reports whether rest (a path after [route]) is one of the
// provider's API paths, the only ones the provider's headers (its key)
// are added to: responses, chat and text completions, embeddings and
// models. Files, batches, organisation and admin paths are not.
func apiPath(rest string) bool {
	for _, p := range []string{"/responses", "/chat/completions", "/completions", "/embeddings", "/models", "/messages"} {
		if rest == p || strings.HasPrefix(rest, p+"/") {
			return true
		}
	}
	return false
}
