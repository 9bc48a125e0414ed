package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/tui"
)

// modelsTimeout bounds the provider's /models request of the /model picker.
const modelsTimeout = 3 * time.Second

// sessionsShown caps the sessions the /resume picker lists.
const sessionsShown = 500

// pickerHooks are the chat's hooks for the /model and /resume pickers and
// the custom prompts' directories.
func (s *switchboard) pickerHooks(c *tui.Commands, o *tui.Options) {
	c.Models = s.models
	c.Sessions = func(_ context.Context, all bool) ([]tui.SessionInfo, error) {
		ents, err := rollout.List(s.e.home, s.e.ws.cwd, all, sessionsShown)
		var out []tui.SessionInfo
		for _, e := range ents {
			out = append(out, tui.SessionInfo{ID: e.ID, Title: e.Title, Cwd: e.Cwd, Updated: e.Updated})
		}
		return out, err
	}
	o.PromptDirs = append(o.PromptDirs, filepath.Join(s.e.home, "prompts"))
}

// models is /model's list: the provider's /models when it answers in
// time, else the known models of the provider; reasoning efforts for the
// models that take them.
func (s *switchboard) models(ctx context.Context) ([]tui.ModelChoice, error) {
	s.mu.Lock()
	co := s.e.clientOpts
	s.mu.Unlock()
	names := fetchModels(ctx, co.Provider.BaseURL, co.HTTPClient, co.Auth)
	if len(names) == 0 && co.Provider.ID == "openai" {
		names = []string{"gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.3-codex"}
	}
	var out []tui.ModelChoice
	for _, n := range names {
		c := tui.ModelChoice{Name: n}
		if strings.HasPrefix(n, "gpt-5") || strings.HasPrefix(n, "o3") || strings.HasPrefix(n, "o4") {
			c.Efforts = []string{"low", "medium", "high"}
		}
		out = append(out, c)
	}
	return out, nil
}

// fetchModels asks baseURL/models for its model ids (OpenAI's "data" or
// Codex's "models" list); nil when it does not answer in time or well.
func fetchModels(ctx context.Context, baseURL string, hc *http.Client, auth interface {
	Apply(context.Context, http.Header) error
}) []string {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(baseURL, "/")+"/models", nil)
	if err != nil {
		return nil
	}
	if auth != nil && auth.Apply(ctx, req.Header) != nil {
		return nil
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var body struct {
		Data   []struct{ ID string }   `json:"data"`
		Models []struct{ Slug string } `json:"models"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&body) != nil {
		return nil
	}
	var out []string
	for _, d := range body.Data {
		out = append(out, d.ID)
	}
	for _, m := range body.Models {
		out = append(out, m.Slug)
	}
	return out
}
