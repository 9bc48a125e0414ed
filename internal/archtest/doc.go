// Package archtest holds no code: its test checks that imports flow the way
// ARCHITECTURE.md says they do.
package archtest
