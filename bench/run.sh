#!/bin/sh
# Whole-binary benchmarks of agent against a loopback fake Responses server,
# optionally next to the reference client (Codex CLI, installed with npm into
# bench/.cache). See BENCHMARKS.md for the figures and bench/cmd/benchrun for
# what is measured.
#
#   bench/run.sh                      agent only
#   bench/run.sh --with-reference     also codex 0.169.0 (npm install on first use)
#   bench/run.sh --tui                only the TUI @-search benchmarks (go test -bench ./tui/)
#   bench/run.sh -h                   every flag
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/cmd/benchrun "$@"
