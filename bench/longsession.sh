#!/bin/bash
# The long session of issue 40 through the real binary: one `agent exec`
# turn of fifty tool calls (each a command that appends to a file in the
# workspace and prints about 1.5 KB), against fakeresponses. The scripted
# usage climbs to model_auto_compact_token_limit at the 25th call, so agent
# compacts once (a summary request), then climbs again without reaching it.
# Prints the wall time, the requests, the compaction's request and time,
# and the size of the requests before and after it.
#
#   bench/longsession.sh              automatic compaction at 20000 tokens
#   bench/longsession.sh --no-compact the same session without it
set -eu
cd "$(dirname "$0")/.."
limit=20000
[ "${1:-}" = "--no-compact" ] && limit=0
tmp=$(mktemp -d)
srvpid=
trap '[ -n "$srvpid" ] && kill $srvpid 2>/dev/null; rm -rf "$tmp"' EXIT
if [ -n "${AGENT_BIN:-}" ]; then cp "$AGENT_BIN" "$tmp/agent"; else go build -o "$tmp/agent" ./cmd/agent; fi
if [ -n "${FAKE_BIN:-}" ]; then cp "$FAKE_BIN" "$tmp/fakeresponses"; else go build -o "$tmp/fakeresponses" ./internal/responsestest/cmd/fakeresponses; fi

call() { # n usage
	local n=$1 u=$2
	printf '{"events":[{"type":"response.created","response":{"id":"r%d"}},' "$n"
	printf '{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc%d","call_id":"call_%d","name":"exec_command","arguments":"{\\"cmd\\":\\"seq %d %d | tee -a steps.log\\"}","status":"completed"}},' "$n" "$n" $((n * 1000)) $((n * 1000 + 299))
	printf '{"type":"response.completed","response":{"id":"r%d","status":"completed","usage":{"input_tokens":%d,"output_tokens":20,"total_tokens":%d}}}]}' "$n" "$u" $((u + 20))
}
{
	echo '['
	for n in $(seq 1 25); do call "$n" $((n * 800 - 20)); echo ','; done
	if [ "$limit" != 0 ]; then echo '{"reply":"Summary: fifty steps requested; the first 25 ran, each appending a range of numbers to steps.log."},'; fi
	for n in $(seq 26 50); do call "$n" $((4000 + (n - 25) * 600)); echo ','; done
	echo '{"reply":"All fifty steps are done."}'
	echo ']'
} >"$tmp/script.json"

mkdir -p "$tmp/dump" "$tmp/ws" "$tmp/home"
"$tmp/fakeresponses" --script "$tmp/script.json" --dump "$tmp/dump" >"$tmp/server.log" 2>"$tmp/server.err" &
srvpid=$!
for _ in $(seq 100); do [ -s "$tmp/server.log" ] && break; sleep 0.05; done
url=$(head -1 "$tmp/server.log")
{
	echo 'model = "test-model"'
	echo 'model_provider = "fake"'
	[ "$limit" != 0 ] && echo "model_auto_compact_token_limit = $limit"
	printf '[model_providers.fake]\nbase_url = "%s"\nenv_key = "FAKE_KEY"\n' "$url"
} >"$tmp/home/config.toml"

start=$(date +%s.%N)
mkdir -p "$tmp/user"
# HOME without rc files: the login shell of each command reads none (a
# developer's .bashrc can take seconds).
HOME="$tmp/user" AGENT_HOME="$tmp/home" FAKE_KEY=k /usr/bin/time -f '%e %M' -o "$tmp/time" \
	"$tmp/agent" exec -s workspace-write -C "$tmp/ws" "Do the fifty steps" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
read -r wall rss <"$tmp/time"
reqs=$(grep -c '^request ' "$tmp/server.log")
echo "limit: $limit tokens; answer: $(cat "$tmp/out")"
echo "wall: ${wall} s; peak RSS: ${rss} KiB; requests: $reqs"
summary=$(grep -l 'CONTEXT CHECKPOINT COMPACTION' "$tmp"/dump/request-*.json 2>/dev/null | sed 's/.*request-\([0-9]*\).json/\1/' || true)
# gap k: from the end of response k to the arrival of request k+1 (the
# command of call k and agent's own work).
gap() { awk -v n="$1" '$1=="done" && $2==n {d=$3} $1=="request" && $2==n+1 {r=$3} END {printf "%d", (r-d)/1000000}' "$tmp/server.log"; }
gaps=$(for k in $(seq 1 $((reqs - 1))); do [ "$k" != "${summary:-0}" ] && [ "$k" != "$(( ${summary:-0} - 1 ))" ] && gap "$k"; echo; done | grep . | sort -n)
echo "between two calls (the command, then agent's work): median $(echo "$gaps" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms"
if [ -n "$summary" ]; then
	echo "compaction: request $summary; from response $((summary - 1)) to the next call's request: $(( $(gap $((summary - 1))) + $(gap "$summary") )) ms (with call $((summary - 1))'s command)"
fi
size() { # n: bytes and input items of request n
	local f="$tmp/dump/request-$1.json"
	echo "$(wc -c <"$f") bytes, $(jq '.input | length' "$f") items"
}
last=$reqs
echo "request 1: $(size 1)"
[ -n "$summary" ] && echo "request $((summary - 1)) (before compacting): $(size $((summary - 1)))" && echo "request $((summary + 1)) (after): $(size $((summary + 1)))"
echo "request $last (the last): $(size "$last")"
echo "input bytes sent in all: $(cat "$tmp"/dump/request-*.json | wc -c)"
echo "checkpoints: $(grep -c '"type":"checkpoint"' "$(find "$tmp/home/sessions" -name '*.jsonl' | head -1)") recorded; store $(du -sk "$tmp/home/checkpoints" | cut -f1) KiB"
