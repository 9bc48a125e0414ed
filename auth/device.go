package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Device-code login limits, as in the reference client.
const (
	// DeviceCodeLifetime is how long a user code can be approved.
	DeviceCodeLifetime = 15 * time.Minute
	// defaultDeviceInterval is the poll interval when the issuer names none.
	defaultDeviceInterval = 5 * time.Second
)

// ErrDeviceCodeExpired says the user code was not approved in time.
var ErrDeviceCodeExpired = errors.New("auth: the device code expired before it was approved; run `agent login --device-auth` again")

// LoginDevice runs the ChatGPT device-code login, for machines without a
// browser: it asks the issuer for a user code, calls show with the page to
// open (on any device) and the code to enter there, polls until the code
// is approved (waiting with opts.Sleep, at most [DeviceCodeLifetime] of
// waits), then trades the result for tokens and saves them in auth.json.
func LoginDevice(ctx context.Context, opts LoginOptions, show func(verificationURL, userCode string)) (*File, error) {
	o := opts.withDefaults()
	issuer := o.Endpoints.Issuer
	var uc struct {
		DeviceAuthID string          `json:"device_auth_id"`
		UserCode     string          `json:"user_code"`
		UserCodeAlt  string          `json:"usercode"`
		Interval     json.RawMessage `json:"interval"`
	}
	status, err := postJSON(ctx, o.HTTPClient, issuer+"/api/accounts/deviceauth/usercode",
		map[string]string{"client_id": o.Endpoints.ClientID}, &uc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("auth: request a device code: %w", err)
	case status == http.StatusNotFound:
		return nil, errors.New("auth: this issuer does not offer device-code login; run `agent login` instead")
	case status != http.StatusOK:
		return nil, fmt.Errorf("auth: request a device code: http %d %s", status, http.StatusText(status))
	}
	if uc.UserCode == "" {
		uc.UserCode = uc.UserCodeAlt
	}
	if uc.DeviceAuthID == "" || uc.UserCode == "" {
		return nil, errors.New("auth: request a device code: the answer has no device_auth_id or user_code")
	}
	interval := parseInterval(uc.Interval)
	show(issuer+"/codex/device", uc.UserCode)

	var waited time.Duration
	for {
		var ok struct {
			AuthorizationCode string `json:"authorization_code"`
			CodeVerifier      string `json:"code_verifier"`
		}
		status, err := postJSON(ctx, o.HTTPClient, issuer+"/api/accounts/deviceauth/token",
			map[string]string{"device_auth_id": uc.DeviceAuthID, "user_code": uc.UserCode}, &ok)
		switch {
		case err != nil:
			return nil, fmt.Errorf("auth: poll the device code: %w", err)
		case status == http.StatusOK:
			if ok.AuthorizationCode == "" || ok.CodeVerifier == "" {
				return nil, errors.New("auth: poll the device code: the answer has no authorization code")
			}
			tr, err := exchangeCode(ctx, o.HTTPClient, o.Endpoints, ok.AuthorizationCode, issuer+"/deviceauth/callback", ok.CodeVerifier)
			if err != nil {
				return nil, err
			}
			return finish(ctx, o, tr)
		case status != http.StatusForbidden && status != http.StatusNotFound: // 403, 404: not approved yet
			return nil, fmt.Errorf("auth: poll the device code: http %d %s", status, http.StatusText(status))
		}
		if waited+interval > DeviceCodeLifetime {
			return nil, ErrDeviceCodeExpired
		}
		if err := o.Sleep(ctx, interval); err != nil {
			return nil, err
		}
		waited += interval
	}
}

// parseInterval reads the poll interval, which the issuer sends as a
// number or a string of seconds.
func parseInterval(raw json.RawMessage) time.Duration {
	s := strings.Trim(string(raw), `" `)
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		return defaultDeviceInterval
	}
	return max(time.Duration(n*float64(time.Second)), time.Second)
}

// postJSON posts body as JSON to u and decodes a 200 answer into out. It
// returns the status; a non-200 answer leaves out alone.
func postJSON(ctx context.Context, hc *http.Client, u string, body, out any) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, tokenTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			return 0, fmt.Errorf("decode answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}
