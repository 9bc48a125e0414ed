package mcp

// Parameters exposes parameters to the external tests.
func Parameters(schema any) map[string]any { return parameters(schema) }
