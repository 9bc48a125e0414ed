// Package bench holds the Go-level benchmarks and the soak test of agent;
// the whole-binary benchmarks are bench/run.sh (bench/cmd/benchrun). See
// BENCHMARKS.md for the figures.
package bench_test
