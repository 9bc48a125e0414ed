#!/usr/bin/env bash
# Records what the real Codex CLI 0.169.0 makes of each scenario here: it
# copies NAME/input/ to a scratch directory, runs Codex's own apply_patch on
# NAME/patch.txt there (the codex binary applies a patch when invoked under
# the name apply_patch) and saves the resulting tree as NAME/expected/ and
# Codex's exit status as NAME/codex-status ("ok" or "error").
# codex_scenarios_test.go checks that agent makes the same trees, except
# where NAME/expected-agent/ records a deliberate difference (see its
# NAME/why-different). Not run by CI; rerun it by hand to re-record:
#
#   npm install --prefix /tmp/codex169 @openai/codex@0.169.0
#   CODEX=$(ls /tmp/codex169/node_modules/@openai/codex-linux-x64/vendor/*/bin/codex) \
#     bash tools/patch/testdata/codex-scenarios/record.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${CODEX:?set CODEX to the native codex 0.169.0 binary}"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$CODEX" "$bin/apply_patch"
for dir in "$here"/*/; do
	name=$(basename "$dir")
	work=$(mktemp -d)
	[ -d "$dir/input" ] && cp -a "$dir/input/." "$work/"
	if (cd "$work" && "$bin/apply_patch" "$(cat "$dir/patch.txt")" >/dev/null 2>&1); then
		echo ok >"$dir/codex-status"
	else
		echo error >"$dir/codex-status"
	fi
	rm -rf "$dir/expected"
	mkdir -p "$dir/expected"
	cp -a "$work/." "$dir/expected/"
	rm -rf "$work"
	echo "$name: $(cat "$dir/codex-status")"
done
