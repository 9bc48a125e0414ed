package responsestest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ParseScript reads a [Script] written as JSON, so one scenario file can
// drive an in-process [Server], the fakeresponses binary and other
// clients recorded against it. The file is an array of attempts; each
// attempt is one of
//
//	{"status": 500}                          // Status(500)
//	{"status": 429, "body": "...", "headers": {"Retry-After": "2"}}
//	{"reply": "hello"}                       // Reply("resp_N", "msg_N", "hello")
//	{"events": [EVENT, ...]}                 // Stream(...)
//
// and each EVENT is a Responses API event object with its "type" (sent
// as [Event]), or a control step: {"drop": true} ([Drop]) or
// {"raw": "..."} ([Raw]). Errors name the attempt and event at fault.
func ParseScript(b []byte) (Script, error) {
	var raw []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("script: want a JSON array of attempts: %w", err)
	}
	script := make(Script, 0, len(raw))
	for i, a := range raw {
		at, err := parseAttempt(i, a)
		if err != nil {
			return nil, fmt.Errorf("script: attempt %d: %w", i+1, err)
		}
		script = append(script, at)
	}
	return script, nil
}

func parseAttempt(i int, a map[string]json.RawMessage) (Attempt, error) {
	var headers map[string]string
	if h, ok := a["headers"]; ok {
		if err := json.Unmarshal(h, &headers); err != nil {
			return Attempt{}, fmt.Errorf(`"headers": want an object of strings: %w`, err)
		}
	}
	var kv []string
	for k, v := range headers {
		kv = append(kv, k, v)
	}
	switch {
	case a["status"] != nil:
		var code int
		if err := json.Unmarshal(a["status"], &code); err != nil {
			return Attempt{}, fmt.Errorf(`"status": want a number: %w`, err)
		}
		if b, ok := a["body"]; ok {
			var body string
			if err := json.Unmarshal(b, &body); err != nil {
				return Attempt{}, fmt.Errorf(`"body": want a string: %w`, err)
			}
			return StatusBody(code, body, kv...), nil
		}
		return Status(code, kv...), nil
	case a["reply"] != nil:
		var text string
		if err := json.Unmarshal(a["reply"], &text); err != nil {
			return Attempt{}, fmt.Errorf(`"reply": want a string: %w`, err)
		}
		return Reply(fmt.Sprintf("resp_%d", i+1), fmt.Sprintf("msg_%d", i+1), text), nil
	case a["events"] != nil:
		var evs []map[string]any
		dec := json.NewDecoder(bytes.NewReader(a["events"]))
		dec.UseNumber()
		if err := dec.Decode(&evs); err != nil {
			return Attempt{}, fmt.Errorf(`"events": want an array of objects: %w`, err)
		}
		steps := make([]Step, 0, len(evs))
		for j, ev := range evs {
			st, err := parseStep(ev)
			if err != nil {
				return Attempt{}, fmt.Errorf("event %d: %w", j+1, err)
			}
			steps = append(steps, st)
		}
		return StreamWithHeaders(kv, steps...), nil
	}
	return Attempt{}, fmt.Errorf(`want "status", "reply" or "events"`)
}

func parseStep(ev map[string]any) (Step, error) {
	if d, ok := ev["drop"]; ok && d == true {
		return Drop(), nil
	}
	if r, ok := ev["raw"].(string); ok {
		return Raw(r), nil
	}
	typ, ok := ev["type"].(string)
	if !ok || typ == "" {
		return Step{}, fmt.Errorf(`want a "type" string, {"drop": true} or {"raw": "..."}`)
	}
	return Event(typ, ev), nil
}
