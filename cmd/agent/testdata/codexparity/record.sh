#!/usr/bin/env bash
# Records what the real Codex CLI prints for each scenario of scenarios.txt,
# run against the in-repo fake Responses server, so exec_parity_test.go can
# compare agent with it. Not run by CI; rerun it by hand to re-record:
#
#   npm install --prefix /tmp/codex169 @openai/codex@0.169.0
#   go build -o /tmp/fakeresponses ./internal/responsestest/cmd/fakeresponses
#   go build -o /tmp/mcptestserver ./internal/mcptest/cmd/mcptestserver
#   CODEX=/tmp/codex169/node_modules/.bin/codex bash cmd/agent/testdata/codexparity/record.sh
#
# Every run gets a private CODEX_HOME whose config points the custom provider
# "fake" (model gpt-5.5, a model Codex has metadata for) at the loopback
# server. NAME.codex.outputs.json keeps the tool outputs Codex sent back to
# the model in its last request (their ids dropped). Codex's session id is replaced by {{THREAD_ID}} and the working
# directory by {{WORK}}; the test does the same to agent's output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${CODEX:?set CODEX to the codex 0.169.0 binary}"
FAKE=${FAKE:-/tmp/fakeresponses}
MCP=${MCP:-/tmp/mcptestserver}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run() { # name mode flags...
	local name=$1 mode=$2; shift 2
	local d=$scratch/$name-$mode
	mkdir -p "$d/home" "$d/work"
	mkdir -p "$d/dump"
	"$FAKE" --script "$here/$name.json" --dump "$d/dump" >"$d/server.log" 2>"$d/server.err" &
	local pid=$!
	for _ in $(seq 100); do [ -s "$d/server.log" ] && break; sleep 0.05; done
	cat >"$d/home/config.toml" <<CFG
model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "$(head -1 "$d/server.log")"
env_key = "FAKE_KEY"
wire_api = "responses"

[mcp_servers.test]
command = "$MCP"
args = ["-image"]
CFG
	[ -d "$here/seed/$name" ] && cp -r "$here/seed/$name/." "$d/work/"
	local json=()
	[ "$mode" = json ] && json=(--json)
	set +e
	(cd "$d/work" && env -i PATH=/usr/bin:/bin HOME="$d/home" CODEX_HOME="$d/home" FAKE_KEY=sk-test-canary-0000 \
		timeout 60 "$CODEX" exec "${json[@]}" --skip-git-repo-check "$@" "do it" </dev/null >"$d/stdout" 2>"$d/stderr")
	echo $? >"$d/exit"
	set -e
	kill "$pid"; wait "$pid" 2>/dev/null || true
	local work
	work=$(cd "$d/work" && pwd -P)
	norm() { sed -E -e "s#$work#{{WORK}}#g" -e 's/Wall time: [0-9.]+ seconds/Wall time: {{WALL}} seconds/g' -e 's/ in [0-9.]+m?s:$/ in {{DURATION}}:/' -e 's/^[0-9TZ:.-]+ +(ERROR|WARN|INFO) /{{TIME}} \1 /' -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/{{THREAD_ID}}/g' "$1"; }
	if [ "$mode" = json ]; then
		norm "$d/stdout" >"$here/$name.codex.jsonl"
		# The tool outputs Codex sent back to the model, from its last request.
		last=$(ls "$d/dump" | sort -t- -k2 -n | tail -1)
		python3 -c 'import json,sys
items=json.load(open(sys.argv[1]))["input"]
outs=[{k:v for k,v in it.items() if k!="id"} for it in items if it.get("type","").endswith("call_output")]
print(json.dumps(outs,indent=1))' "$d/dump/$last" | norm /dev/stdin >"$here/$name.codex.outputs.json"
	else
		norm "$d/stdout" >"$here/$name.codex.out"
		norm "$d/stderr" >"$here/$name.codex.err"
	fi
	echo "$name $mode: exit $(cat "$d/exit")"
}

grep -v '^#' "$here/scenarios.txt" | while read -r name flags; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	run "$name" json $flags
	# shellcheck disable=SC2086
	run "$name" human $flags
done
