package app

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// modelsTimeout bounds the provider's /models request of the /model picker.
const modelsTimeout = 3 * time.Second

// Models is /model's list: the provider's /models when it answers in
// time, then the catalogue's models not in it (config's [models] first,
// then the catalogue provider the wire belongs to: Anthropic's models for
// wire_api = "anthropic", OpenAI's otherwise), on any provider, as Codex
// lists its presets whatever the provider.
func (a *App) Models(ctx context.Context) []string {
	co := a.clientOpts
	names := fetchModels(ctx, co.Provider.BaseURL, co.Provider.WireAPI, co.HTTPClient, co.Auth)
	family := "openai"
	if co.Provider.WireAPI == provider.WireAPIAnthropic {
		family = "anthropic"
	}
	for _, m := range a.cfg.Catalog.Models(family) {
		if !slices.Contains(names, m.ID) {
			names = append(names, m.ID)
		}
	}
	return names
}

// fetchModels asks baseURL/models for its model ids (OpenAI's and
// Anthropic's "data", or Codex's "models" list), with the key where the
// provider's wire reads it (x-api-key for wire_api "anthropic"); nil when
// it does not answer in time or well.
func fetchModels(ctx context.Context, baseURL, wire string, hc *http.Client, auth interface {
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
	if wire == provider.WireAPIAnthropic {
		req.Header = modelclient.AnthropicHeader(req.Header)
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
