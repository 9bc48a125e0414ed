package responsestest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// serveModels answers GET .../models, the cheap authenticated request a
// client makes to check its key: the model list, or 401 when
// [Options.APIKey] is set and the request does not carry it as a bearer
// token. The request is recorded in [Server.ModelsRequests], not in
// Requests, and consumes no attempt.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.models = append(s.models, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone()})
	s.mu.Unlock()
	if s.opts.ModelsStatus != 0 {
		http.Error(w, http.StatusText(s.opts.ModelsStatus), s.opts.ModelsStatus)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if k := s.opts.APIKey; k != "" && r.Header.Get("Authorization") != "Bearer "+k {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(errorBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided.")))
		return
	}
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	ids := s.opts.Models
	if len(ids) == 0 {
		ids = []string{"test-model"}
	}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model"})
	}
	_ = json.NewEncoder(w).Encode(list)
}

// isModels reports whether r is GET .../models.
func isModels(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models")
}

// ModelsRequests returns copies of the GET .../models requests received
// so far.
func (s *Server) ModelsRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.models))
	for i, r := range s.models {
		out[i] = r.clone()
	}
	return out
}
