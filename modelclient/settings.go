package modelclient

// Settings are what a session may change from one turn to the next: which
// model answers and how. They travel with each turn ([TurnOptions]), as
// codex-rs passes them with each call, so /model changes them without
// touching what the session's [Client] holds (its id, the sticky
// WebSocket fallback, the cached connection).
type Settings struct {
	// Model is the model slug sent with every request.
	Model string
	// ReasoningEffort and ReasoningSummary fill the "reasoning" object;
	// empty values are omitted.
	ReasoningEffort, ReasoningSummary string
	// Verbosity is "text.verbosity" (low, medium, high); "" sends none.
	Verbosity string
	// ServiceTier is the "service_tier" field ("priority", "flex", ...;
	// Codex's legacy "fast" is sent as "priority"); "" sends none.
	ServiceTier string
}
