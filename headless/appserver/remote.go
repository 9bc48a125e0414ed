package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Remote is a client of an app-server (agent's or Codex's) over a
// WebSocket: what `agent exec --remote` and `agent --remote` run their
// turns on. One goroutine reads the connection: responses go to the
// request that awaits them, notifications and server requests wait in
// order for [Remote.Next]. Its methods are safe for concurrent use.
type Remote struct {
	c *websocket.Conn

	mu    sync.Mutex
	next  int
	calls map[string]chan message
	queue []message
	// ready has room for one signal: the queue grew.
	ready chan struct{}
	// done is closed when the connection ends; err says why.
	done chan struct{}
	err  error
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
	r := &Remote{c: c, calls: map[string]chan message{}, ready: make(chan struct{}, 1), done: make(chan struct{})}
	go r.read()
	if _, err := r.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{"name": name, "title": nil, "version": version},
		"capabilities": map[string]any{"experimentalApi": true}}); err != nil {
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

// read reads the connection until it ends.
func (r *Remote) read() {
	for {
		_, b, err := r.c.Read(context.Background())
		var m message
		if err == nil {
			if jerr := json.Unmarshal(b, &m); jerr != nil {
				err = fmt.Errorf("the app-server sent %q: %w", b, jerr)
			}
		}
		if err != nil {
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			close(r.done)
			r.c.CloseNow()
			return
		}
		r.mu.Lock()
		if m.Method == "" {
			if ch := r.calls[idKey(m.ID)]; ch != nil {
				delete(r.calls, idKey(m.ID))
				ch <- m
			}
			r.mu.Unlock()
			continue
		}
		r.queue = append(r.queue, m)
		r.mu.Unlock()
		select {
		case r.ready <- struct{}{}:
		default:
		}
	}
}

// gone is why the connection ended.
func (r *Remote) gone() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		return errors.New("the app-server closed the connection")
	}
	return fmt.Errorf("the app-server connection ended: %w", r.err)
}

// Call sends a request and waits for its result; the notifications that
// arrive meanwhile wait for [Remote.Next].
func (r *Remote) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan message, 1)
	r.mu.Lock()
	r.next++
	id := r.next
	r.calls[strconv.Itoa(id)] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.calls, strconv.Itoa(id))
		r.mu.Unlock()
	}()
	if err := r.write(ctx, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, &RemoteError{Method: method, Code: m.Error.Code, Message: m.Error.Message}
		}
		return m.Result, nil
	case <-r.done:
		return nil, r.gone()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// RemoteError is the error an app-server answered a request with.
type RemoteError struct {
	Method  string
	Code    int
	Message string
}

func (e *RemoteError) Error() string { return fmt.Sprintf("%s: %s (%d)", e.Method, e.Message, e.Code) }

// Message is a server notification (ID nil) or server request as the
// remote sent it.
type Message struct {
	// ID is a server request's id, to answer with [Remote.Reply]; nil
	// for a notification.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// Notification is a server notification as the remote sent it.
type Notification = Message

// Next returns the next notification or server request, waiting for one.
func (r *Remote) Next(ctx context.Context) (Message, error) {
	for {
		r.mu.Lock()
		if len(r.queue) > 0 {
			m := r.queue[0]
			r.queue = r.queue[1:]
			r.mu.Unlock()
			return Message{ID: m.ID, Method: m.Method, Params: m.Params}, nil
		}
		r.mu.Unlock()
		select {
		case <-r.ready:
		case <-r.done:
			r.mu.Lock()
			empty := len(r.queue) == 0
			r.mu.Unlock()
			if empty {
				return Message{}, r.gone()
			}
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// Reply answers the server request id with result.
func (r *Remote) Reply(ctx context.Context, id json.RawMessage, result any) error {
	return r.write(ctx, map[string]any{"id": id, "result": result})
}

// ReplyError answers the server request id with an error.
func (r *Remote) ReplyError(ctx context.Context, id json.RawMessage, code int, msg string) error {
	return r.write(ctx, map[string]any{"id": id, "error": map[string]any{"code": code, "message": msg}})
}

// interrupt asks the server to interrupt the turn (its answer is not
// awaited: the turn's turn/completed says how it ended).
func (r *Remote) interrupt(threadID, turnID string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	_ = r.write(ctx, map[string]any{"id": "interrupt-" + turnID, "method": "turn/interrupt",
		"params": map[string]any{"threadId": threadID, "turnId": turnID}})
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

// StartThread starts a thread with params (ThreadStartParams) and returns
// the server's response.
func (r *Remote) StartThread(ctx context.Context, params map[string]any) (ThreadOpened, error) {
	return r.openThread(ctx, "thread/start", params)
}

// ThreadOpened is what thread/start, thread/resume and thread/fork
// answered that a client shows.
type ThreadOpened struct {
	Thread struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Turns []struct {
			ID    string            `json:"id"`
			Items []json.RawMessage `json:"items"`
		} `json:"turns"`
	} `json:"thread"`
	Model         string `json:"model"`
	ModelProvider string `json:"modelProvider"`
	Cwd           string `json:"cwd"`
	// ApprovalPolicy is a string for the plain policies.
	ApprovalPolicy json.RawMessage `json:"approvalPolicy"`
	Sandbox        struct {
		Type string `json:"type"`
	} `json:"sandbox"`
}

func (r *Remote) openThread(ctx context.Context, method string, params map[string]any) (ThreadOpened, error) {
	var out ThreadOpened
	res, err := r.Call(ctx, method, params)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(res, &out); err != nil || out.Thread.ID == "" {
		return out, fmt.Errorf("%s answered %s", method, res)
	}
	return out, nil
}

// startTurn sends turn/start with params and returns the turn's id.
func (r *Remote) startTurn(ctx context.Context, params map[string]any) (string, error) {
	res, err := r.Call(ctx, "turn/start", params)
	if err != nil {
		return "", err
	}
	var turn struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	if err := json.Unmarshal(res, &turn); err != nil || turn.Turn.ID == "" {
		return "", fmt.Errorf("turn/start answered %s", res)
	}
	return turn.Turn.ID, nil
}

// textInput is text as a turn's input.
func textInput(text string) []any {
	return []any{map[string]any{"type": "text", "text": text, "text_elements": []any{}}}
}

// completedTurn reads a turn/completed notification: the turn's id,
// status and error message.
func completedTurn(params json.RawMessage) (id, status, msg string) {
	var done struct {
		Turn struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"turn"`
	}
	if json.Unmarshal(params, &done) != nil {
		return "", "", ""
	}
	if done.Turn.Error != nil {
		msg = done.Turn.Error.Message
	}
	return done.Turn.ID, done.Turn.Status, msg
}

// Turn starts a thread, runs one turn of it under the never approval
// policy and returns how it ended; every notification goes to on (a
// server request is declined: no one can be asked).
func (r *Remote) Turn(ctx context.Context, t RemoteTurn, on func(Notification)) (TurnResult, error) {
	params := map[string]any{"approvalPolicy": "never"}
	for k, v := range map[string]string{"cwd": t.Cwd, "model": t.Model, "sandbox": t.Sandbox} {
		if v != "" {
			params[k] = v
		}
	}
	started, err := r.StartThread(ctx, params)
	if err != nil {
		return TurnResult{}, err
	}
	out := TurnResult{ThreadID: started.Thread.ID}
	turnID, err := r.startTurn(ctx, map[string]any{"threadId": out.ThreadID, "approvalPolicy": "never", "input": textInput(t.Prompt)})
	if err != nil {
		return out, err
	}
	stop := context.AfterFunc(ctx, func() { r.interrupt(out.ThreadID, turnID) })
	defer stop()
	for {
		m, err := r.Next(context.WithoutCancel(ctx))
		if err != nil {
			return out, err
		}
		if m.ID != nil {
			_ = r.Reply(ctx, m.ID, map[string]any{"decision": "decline"})
			continue
		}
		if on != nil {
			on(m)
		}
		if m.Method != "turn/completed" {
			continue
		}
		id, status, msg := completedTurn(m.Params)
		if id != turnID {
			continue
		}
		out.Status, out.Error = status, msg
		_, _ = r.Call(context.WithoutCancel(ctx), "thread/unsubscribe", map[string]any{"threadId": out.ThreadID})
		return out, nil
	}
}

// ResumeThread resumes thread id (thread/resume).
func (r *Remote) ResumeThread(ctx context.Context, id string) (ThreadOpened, error) {
	return r.openThread(ctx, "thread/resume", map[string]any{"threadId": id})
}

// RemoteMessage is a message of a thread's recorded turns.
type RemoteMessage struct {
	// Role is "user" or "assistant".
	Role, Text string
}

// Messages are the user's and the assistant's messages of the turns the
// thread was opened with, oldest first.
func (o ThreadOpened) Messages() []RemoteMessage {
	var out []RemoteMessage
	for _, t := range o.Thread.Turns {
		for _, raw := range t.Items {
			var it struct {
				Type    string `json:"type"`
				Text    string `json:"text"`
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			}
			if json.Unmarshal(raw, &it) != nil {
				continue
			}
			switch it.Type {
			case "userMessage":
				var parts []string
				for _, c := range it.Content {
					if c.Type == "text" {
						parts = append(parts, c.Text)
					}
				}
				out = append(out, RemoteMessage{Role: "user", Text: strings.Join(parts, "\n")})
			case "agentMessage":
				out = append(out, RemoteMessage{Role: "assistant", Text: it.Text})
			}
		}
	}
	return out
}

// RemoteModel is a model the server offers (model/list).
type RemoteModel struct {
	Name, Description string
	// Efforts are its reasoning efforts.
	Efforts []string
}

// Models lists the models the server offers.
func (r *Remote) Models(ctx context.Context) ([]RemoteModel, error) {
	res, err := r.Call(ctx, "model/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			Model       string `json:"model"`
			Description string `json:"description"`
			Hidden      bool   `json:"hidden"`
			Efforts     []struct {
				Effort string `json:"reasoningEffort"`
			} `json:"supportedReasoningEfforts"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, fmt.Errorf("model/list answered %s", res)
	}
	var out []RemoteModel
	for _, m := range list.Data {
		if m.Hidden {
			continue
		}
		rm := RemoteModel{Name: m.Model, Description: m.Description}
		for _, e := range m.Efforts {
			rm.Efforts = append(rm.Efforts, e.Effort)
		}
		out = append(out, rm)
	}
	return out, nil
}

// RemoteThread is a thread thread/list gives.
type RemoteThread struct {
	ID, Title, Cwd string
	Updated        time.Time
}

// Threads lists the server's threads, newest first: those of directory
// cwd, or all when "".
func (r *Remote) Threads(ctx context.Context, cwd string) ([]RemoteThread, error) {
	params := map[string]any{"limit": 100}
	if cwd != "" {
		params["cwd"] = cwd
	}
	res, err := r.Call(ctx, "thread/list", params)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID        string  `json:"id"`
			Name      *string `json:"name"`
			Preview   string  `json:"preview"`
			Cwd       string  `json:"cwd"`
			UpdatedAt int64   `json:"updatedAt"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, fmt.Errorf("thread/list answered %s", res)
	}
	var out []RemoteThread
	for _, t := range list.Data {
		title := t.Preview
		if t.Name != nil && *t.Name != "" {
			title = *t.Name
		}
		out = append(out, RemoteThread{ID: t.ID, Title: title, Cwd: t.Cwd, Updated: time.Unix(t.UpdatedAt, 0)})
	}
	return out, nil
}
