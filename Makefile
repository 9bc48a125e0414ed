# The two commands the README gives: `make run` and `make test`.
GO ?= go
PROMPT ?= explain what this agent does when the model service fails

.PHONY: build run test fuzz install man

# A static binary (no cgo): no dynamic loader or libc to map and start,
# about 5 MiB less resident memory per process (BENCHMARKS.md). The sandbox
# then applies Landlock to every thread through Go's AllThreadsSyscall
# (psx without cgo); `make test` also runs its tests built this way.
build:
	CGO_ENABLED=0 $(GO) build -o bin/ ./cmd/agent ./cmd/agent-otel ./cmd/agent-man ./cmd/agent-highlight

# Installs the binary into GOBIN when it is set, else ~/.local/bin
# (override with make install PREFIX_BIN=/some/dir).
PREFIX_BIN ?= $(or $(shell $(GO) env GOBIN),$(HOME)/.local/bin)
install: build
	mkdir -p "$(PREFIX_BIN)"
	install -m 0755 bin/agent "$(PREFIX_BIN)/agent"
	install -m 0755 bin/agent-otel "$(PREFIX_BIN)/agent-otel"
	install -m 0755 bin/agent-man "$(PREFIX_BIN)/agent-man"
	install -m 0755 bin/agent-highlight "$(PREFIX_BIN)/agent-highlight"
	@echo "installed $(PREFIX_BIN)/agent, agent-otel (the [otel] exporter), agent-man (agent man's page writer) and agent-highlight (the chat's code colours)"

# The man pages, generated from the commands (agent man runs bin/agent-man,
# which links cobra/doc so that agent does not): man -l man/man1/agent.1
man: build
	./bin/agent man man/man1

# Builds the binary and runs one turn; with no API key the config default
# below selects the offline demo provider, which needs no network.
run: build
	./bin/agent exec -c model_provider=demo "$(PROMPT)"

# The first go build compiles, as the end-to-end tests' own build of agent
# does (CGO_ENABLED=0), what they run: on a fresh clone that is 35 s of
# CPU, which otherwise fell inside both end-to-end packages' time limits
# (each test process builds at its start) on a busy machine.
test:
	gofmt -l . | (! grep .) || (echo "gofmt needed on the files above" && exit 1)
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./cmd/... ./internal/mcptest/...
	$(GO) test -race -shuffle=on -count=1 -timeout=8m ./...
	CGO_ENABLED=0 $(GO) test -count=1 ./tools/sandbox/

# Short fuzz runs of every fuzz target (longer: make fuzz FUZZTIME=5m).
# CI runs them briefly after the tests.
FUZZTIME ?= 10s
FUZZ_TARGETS = \
	./transport:FuzzDecode ./transport:FuzzDecodeDelta ./transport:FuzzIgnored ./transport:FuzzLeadingID ./transport:FuzzDecodeLarge ./transport:FuzzCutter ./transport:FuzzCutterFrame ./transport:FuzzDecodeItemFast ./transport/sse:FuzzSSEStream ./transport/sse:FuzzReaderMatchesGoSSE \
	./config:FuzzLoad ./tools/patch:FuzzParse ./tools/patch:FuzzApply ./tools/patch:FuzzUpdate \
	./internal/jsonstring:FuzzString ./rollout:FuzzLoad ./rollout:FuzzDecodeRecord ./rollout:FuzzEnvelope ./rollout:FuzzSimpleEvent ./rollout:FuzzAppendJSONString ./internal/termtext:FuzzSanitize
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test $$pkg -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME); \
	done
