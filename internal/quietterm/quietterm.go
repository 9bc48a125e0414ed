// Package quietterm keeps every agent process from querying its terminal
// at start-up.
//
// bubbletea v1's package init (tea_init.go) asks lipgloss's default
// renderer for the terminal's background, which makes termenv write an
// OSC 11 query and a cursor-position request to standard output and wait
// up to 5 s for the reply (charmbracelet/bubbletea#1771, closed upstream
// as not planned: v2 no longer does it). Go runs that init in every
// process linking bubbletea, whatever the subcommand, so `agent
// --version` under a pseudo-terminal that never answers (script, expect,
// an orchestrator's pty) waited 5 s and printed the query's bytes.
//
// This package's init runs first and gives the default renderer its
// background, so lipgloss has nothing to ask. The order is the Go
// specification's: once lipgloss is initialised, the next package
// initialised is the first, by import path, whose imports are all
// initialised; this package imports only lipgloss, and its path
// (github.com/agentcli/...) sorts before github.com/charmbracelet/bubbletea.
// TestE2ENoTerminalQuery holds the binary to it.
//
// The chat never reads the default renderer's background: its styles are
// bound to a renderer of its own, told the background by its options
// (tui.Options.LightBackground), never by the terminal.
package quietterm

import "github.com/charmbracelet/lipgloss"

func init() {
	// Dark is what termenv assumes when the terminal does not answer.
	lipgloss.SetHasDarkBackground(true)
}
