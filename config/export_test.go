package config

// KnownKeys exposes knownKeys to the external tests.
func KnownKeys() []string { return knownKeys() }

// LoadData exposes load to the fuzz test, which has no file on disk.
func LoadData(path string, data []byte, opts Options) (Config, error) {
	return load(path, data, opts)
}

// CodexIgnoredKeys and CodexFeatures expose the Codex key lists.
func CodexIgnoredKeys() []string { return codexIgnoredKeys() }
func CodexFeatures() []string    { return codexFeatures() }
