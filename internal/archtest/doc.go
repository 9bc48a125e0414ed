// Package archtest holds no code: its tests check that imports flow the way
// ARCHITECTURE.md says they do, and that only the classifier and the retry
// policy table tell retry classes apart.
package archtest
