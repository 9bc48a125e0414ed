package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/coder/websocket"
)

// Remote is a client of an app-server (agent's or Codex's) over a
// WebSocket: what `agent exec --remote` runs a turn on.
type Remote struct {
	c    *websocket.Conn
	next int
}

// DialRemote connects to the app-server at url (ws://HOST:PORT), with
// token as its bearer token when not "", and initializes the session as
// client name.
func DialRemote(ctx context.Context, url, token, name, version string) (*Remote, error) {
	var opts websocket.DialOptions
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, resp, err := websocket.Dial(ctx, url, &opts)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("connect to %s: HTTP %d: %w", url, resp.StatusCode, err)
		}
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	c.SetReadLimit(maxMessage)
	r := &Remote{c: c}
	if _, err := r.call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{"name": name, "title": nil, "version": version},
		"capabilities": map[string]any{"experimentalApi": true}}, nil); err != nil {
		c.CloseNow()
		return nil, err
	}
	if err := r.write(ctx, map[string]any{"method": "initialized"}); err != nil {
		c.CloseNow()
		return nil, err
	}
	return r, nil
}

// Close ends the connection.
func (r *Remote) Close() error { return r.c.Close(websocket.StatusNormalClosure, "") }

func (r *Remote) write(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return r.c.Write(ctx, websocket.MessageText, b)
}

// Notification is a server notification as the remote sent it.
type Notification struct {
	Method string
	Params json.RawMessage
}

// call sends a request and waits for its response; notifications that
// come first go to on (nil: dropped), server requests are declined.
func (r *Remote) call(ctx context.Context, method string, params any, on func(Notification)) (json.RawMessage, error) {
	r.next++
	id := r.next
	if err := r.write(ctx, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		m, err := r.read(ctx)
		if err != nil {
			return nil, err
		}
		if m.Method == "" && idKey(m.ID) == strconv.Itoa(id) {
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
			}
			return m.Result, nil
		}
		r.other(ctx, m, on)
	}
}

func (r *Remote) read(ctx context.Context) (message, error) {
	_, b, err := r.c.Read(ctx)
	if err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return message{}, fmt.Errorf("the app-server sent %q: %w", b, err)
	}
	return m, nil
}

// other takes a message that is not the awaited response.
func (r *Remote) other(ctx context.Context, m message, on func(Notification)) {
	switch {
	case m.Method != "" && len(m.ID) > 0:
		// A server request (an approval): exec cannot ask anyone.
		_ = r.write(ctx, map[string]any{"id": m.ID, "result": map[string]any{"decision": "decline"}})
	case m.Method != "" && on != nil:
		on(Notification{Method: m.Method, Params: m.Params})
	}
}

// RemoteTurn is what [Remote.Turn] asks of the server.
type RemoteTurn struct {
	Prompt, Cwd, Model, Sandbox string
}

// TurnResult is how a remote turn ended.
type TurnResult struct {
	ThreadID string
	// Status is the turn's: completed, interrupted or failed.
	Status string
	// Error is the turn's error message when it failed.
	Error string
}

// Turn starts a thread, runs one turn of it under the never approval
// policy and returns how it ended; every notification goes to on.
func (r *Remote) Turn(ctx context.Context, t RemoteTurn, on func(Notification)) (TurnResult, error) {
	params := map[string]any{"approvalPolicy": "never"}
	for k, v := range map[string]string{"cwd": t.Cwd, "model": t.Model, "sandbox": t.Sandbox} {
		if v != "" {
			params[k] = v
		}
	}
	res, err := r.call(ctx, "thread/start", params, on)
	if err != nil {
		return TurnResult{}, err
	}
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &started); err != nil || started.Thread.ID == "" {
		return TurnResult{}, fmt.Errorf("thread/start answered %s", res)
	}
	out := TurnResult{ThreadID: started.Thread.ID}
	res, err = r.call(ctx, "turn/start", map[string]any{"threadId": out.ThreadID, "approvalPolicy": "never",
		"input": []any{map[string]any{"type": "text", "text": t.Prompt, "text_elements": []any{}}}}, on)
	if err != nil {
		return out, err
	}
	var turn struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	if err := json.Unmarshal(res, &turn); err != nil {
		return out, fmt.Errorf("turn/start answered %s", res)
	}
	stop := context.AfterFunc(ctx, func() {
		wctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		defer cancel()
		_ = r.write(wctx, map[string]any{"id": "interrupt", "method": "turn/interrupt",
			"params": map[string]any{"threadId": out.ThreadID, "turnId": turn.Turn.ID}})
	})
	defer stop()
	for {
		m, err := r.read(context.WithoutCancel(ctx))
		if err != nil {
			return out, err
		}
		if m.Method == "" || len(m.ID) > 0 {
			r.other(ctx, m, on)
			continue
		}
		if on != nil {
			on(Notification{Method: m.Method, Params: m.Params})
		}
		if m.Method != "turn/completed" {
			continue
		}
		var done struct {
			Turn struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"turn"`
		}
		if json.Unmarshal(m.Params, &done) != nil || done.Turn.ID != turn.Turn.ID {
			continue
		}
		out.Status = done.Turn.Status
		if done.Turn.Error != nil {
			out.Error = done.Turn.Error.Message
		}
		_, _ = r.call(context.WithoutCancel(ctx), "thread/unsubscribe", map[string]any{"threadId": out.ThreadID}, nil)
		return out, nil
	}
}
