#!/bin/bash
# Holds the machine's 1-minute load average near N (default 20) with busy
# loops at nice 0, one added or removed every 10 s, until killed (Ctrl-C or
# kill): the "busy machine" of issue 42's suite margin (BENCHMARKS.md).
#
#   bench/load.sh 20 &  CI=true bash .ci/run;  kill %1
#
# Start it in the suite's session, as above: the kernel schedules each
# session as one group (CFS autogroup), so loops started with setsid in a
# session of their own leave the suite half the machine at any load.
set -u
target=${1:-20}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; exit 0' INT TERM EXIT
while :; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	echo "$(date +%T) load $load loops ${#pids[@]}" >&2
	if awk -v l="$load" -v t="$target" 'BEGIN { exit !(l < t - 1) }'; then
		(while :; do :; done) &
		pids+=($!)
	elif awk -v l="$load" -v t="$target" 'BEGIN { exit !(l > t + 2) }' && [ ${#pids[@]} -gt 0 ]; then
		kill "${pids[-1]}"
		unset 'pids[-1]'
	fi
	sleep 10
done
