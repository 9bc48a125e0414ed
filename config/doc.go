// Package config loads the agent's settings from $AGENT_HOME/config.toml,
// which has the same schema as OpenAI Codex's ~/.codex/config.toml, and
// layers the command line on top. Start with [Load]; [Default] is what Load
// returns when there is no file.
//
// Invariants:
//
//   - Precedence, lowest first: built-in defaults, the file's top level, the
//     selected [profiles.<name>] tables, the profile file <name>.config.toml
//     beside config.toml, -c overrides in order, then --model.
//   - The home itself is chosen in one place, [FindHome]: $AGENT_HOME,
//     ~/.agent, then Codex's home ($CODEX_HOME, ~/.codex).
//   - A typo is an error, never a silent no-op: every unknown key, wrong
//     type and invalid value is reported as an [*Error] naming the file,
//     line and key (or the -c argument), all problems at once.
//   - A key of Codex's schema that agent does not use (codexkeys.go) is
//     accepted with one [Warning] per key and run, in [Config.Warnings];
//     the caller prints them. Unknown keys suggest the nearest key,
//     agent's or Codex's.
//   - A [model_providers.<id>] table or -c key with a built-in id adjusts
//     that provider field by field.
//   - Every provider in [Config.Providers] has a complete retry policy:
//     [provider.DefaultRetry], overlaid by [retry.<class>], then by
//     [model_providers.<id>.retry.<class>], field by field.
//   - There is no package state: a [Config] is a value the caller passes on.
//
// config.toml.example at the repository root documents every key.
package config
