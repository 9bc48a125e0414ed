package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/agentcli/agent/proxy"
)

func wsURL(h *harness) string {
	return "ws" + strings.TrimPrefix(h.url, "http") + "/responses"
}

func TestWebSocketRejectedWith426(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("upstream got %s %s; the upgrade must stop at the proxy", r.Method, r.URL)
	}))
	defer up.Close()
	h := newHarness(t, up.URL+"/v1", nil)
	c, resp, err := websocket.Dial(t.Context(), wsURL(h), nil)
	if err == nil {
		c.CloseNow()
		t.Fatal("the upgrade succeeded; want 426")
	}
	if resp == nil || resp.StatusCode != http.StatusUpgradeRequired {
		t.Fatalf("Dial: %v, response %v; want 426", err, resp)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte("websocket_not_proxied")) || resp.Header.Get(proxy.HeaderProxy) != "1" {
		t.Errorf("426 answer: %v %s", resp.Header, body)
	}
}

func TestWebSocketPassthrough(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer provider-key" {
			t.Errorf("upstream handshake %s, Authorization %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.CloseNow()
		for {
			typ, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if err := c.Write(r.Context(), typ, append([]byte("echo:"), msg...)); err != nil {
				return
			}
		}
	}))
	defer up.Close()
	h := newHarness(t, up.URL+"/v1", func(o *proxy.Options) {
		o.WebSocket = proxy.WebSocketPassthrough
		o.Header = http.Header{"Authorization": {"Bearer provider-key"}}
	})
	c, resp, err := websocket.Dial(t.Context(), wsURL(h), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if resp.Header.Get(proxy.HeaderProxy) != "1" {
		t.Errorf("handshake headers = %v", resp.Header)
	}
	for _, m := range []string{`{"type":"response.create"}`, "second"} {
		if err := c.Write(t.Context(), websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "echo:"+m {
			t.Errorf("read %q; want %q", got, "echo:"+m)
		}
	}
	if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Errorf("close: %v", err)
	}
}
