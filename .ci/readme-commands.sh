#!/usr/bin/env bash
# The README's commands, copied verbatim, run against the offline demo
# provider with their exit codes checked. TestREADMECommands (cmd/agent)
# checks that every command below still appears in README.md, then runs
# this script, so the README cannot drift from the binary.
#
# Usage: .ci/readme-commands.sh AGENT_BINARY
# Each line `run CODES 'COMMAND'` runs COMMAND with bash in a scratch
# directory holding bin/agent (a link to AGENT_BINARY); `in_repo` runs it
# in the repository instead. CODES lists the accepted exit codes.
set -uo pipefail
agent_bin=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home/.agent" "$work/gobin" # a fresh HOME: no completion dirs
ln -s "$agent_bin" "$work/bin/agent"
# Keep Go's caches where they are: HOME changes below.
GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
export GOCACHE GOMODCACHE GOPATH
export HOME="$work/home" AGENT_HOME="$work/home/.agent" GOBIN="$work/gobin"
printf 'model_provider = "demo"\n[profiles.fast]\nmodel_reasoning_effort = "low"\n' > "$AGENT_HOME/config.toml"
cd "$work" && git init -q . && echo "summarise this file" > prompt.txt
printf '{"id": "a", "prompt": "one"}\n{"id": "b", "prompt": "two"}\n' > prompts.jsonl
failed=0

check() { # DIR CODES COMMAND
	local dir=$1 codes=$2 cmd=$3 got
	(cd "$dir" && bash -c "$cmd") > "$work/out" 2>&1 </dev/null
	got=$?
	if [[ ",$codes," == *",$got,"* ]]; then
		echo "ok   ($got) $cmd"
	else
		echo "FAIL ($got, want $codes) $cmd"
		sed 's/^/     | /' "$work/out" | tail -20
		failed=1
	fi
}
run() { check "$work" "$@"; }
in_repo() { check "$repo" "$@"; }

# Set up and install.
in_repo 0 'make run'
in_repo 0 'make install'
[[ -x "$GOBIN/agent" ]] || { echo "FAIL make install wrote no $GOBIN/agent"; failed=1; }
in_repo 0 'make man'
# Using it.
run 0 'bin/agent exec "explain this repo"'
run 0 'git diff | bin/agent exec "review this change"'
run 0 'bin/agent exec - < prompt.txt'
run 0 'bin/agent exec -m gpt-5.4-mini -p fast "..."'
run 0 'bin/agent exec -c model_providers.openai.stream_max_retries=10 "..."'
run 0 'bin/agent exec -s workspace-write "fix the failing test"'
run 0 'bin/agent exec resume --last "and now the docs"'
run 1,125 'bin/agent sandbox --mode read-only -- touch x'
# Batch runs.
run 0 'bin/agent exec --batch prompts.jsonl --jobs 8 --results results.jsonl'
[[ $(wc -l < "$work/results.jsonl") == 2 ]] || { echo "FAIL the batch wrote no 2 results"; failed=1; }
run 0,1 'bin/agent doctor'
run 0 'bin/agent exec -c model_provider=demo "hello"'
run 0 'mkdir -p ~/.local/share/bash-completion/completions && bin/agent completion bash > ~/.local/share/bash-completion/completions/agent'
[[ -s "$HOME/.local/share/bash-completion/completions/agent" ]] || { echo "FAIL no bash completion written"; failed=1; }
run 0 'mkdir -p ~/.config/fish/completions && bin/agent completion fish > ~/.config/fish/completions/agent.fish'
[[ -s "$HOME/.config/fish/completions/agent.fish" ]] || { echo "FAIL no fish completion written"; failed=1; }
run 0 'mkdir -p ~/.zfunc && bin/agent completion zsh > ~/.zfunc/_agent'
[[ -s "$HOME/.zfunc/_agent" ]] || { echo "FAIL no zsh completion written"; failed=1; }
# Login, with no login saved.
run 1 'bin/agent login status'
run 0 'bin/agent logout'
# MCP servers last: the commands above would start them.
run 0 'bin/agent mcp add docs --env DOCS_LOG=info -- npx -y @acme/docs-mcp'
run 0 'bin/agent mcp add figma --url https://mcp.figma.com/mcp --bearer-token-env-var FIGMA_TOKEN'
run 0 'bin/agent mcp list'
exit $failed
