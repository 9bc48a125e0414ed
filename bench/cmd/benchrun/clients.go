package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// referenceVersion is the Codex CLI release the targets are set against.
const referenceVersion = "0.169.0"

// buildAgent compiles ./cmd/agent of the module at root into dir, static
// (CGO_ENABLED=0) as `make build` does.
func buildAgent(root, dir string) (string, error) {
	return goBuild(root, dir, "agent", "./cmd/agent")
}

// buildFake compiles the fake Responses server binary into dir.
func buildFake(root, dir string) (string, error) {
	return goBuild(root, dir, "fakeresponses", "./internal/responsestest/cmd/fakeresponses")
}

func goBuild(root, dir, name, pkg string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// installReference installs @openai/codex@referenceVersion with npm under
// cache (unless that version is there already) and returns the path of
// its native binary, which the npm package's bin/codex.js would exec.
func installReference(cache string) (string, error) {
	prefix := filepath.Join(cache, "codex-"+referenceVersion)
	if v, _ := installedVersion(prefix); v != referenceVersion {
		if err := os.MkdirAll(prefix, 0o755); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "benchrun: npm install @openai/codex@%s into %s\n", referenceVersion, prefix)
		cmd := exec.Command("npm", "install", "--prefix", prefix, "--no-audit", "--no-fund",
			"@openai/codex@"+referenceVersion)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("npm install: %w", err)
		}
	}
	return nativeCodex(prefix)
}

func installedVersion(prefix string) (string, error) {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", "@openai", "codex", "package.json"))
	if err != nil {
		return "", err
	}
	var p struct{ Version string }
	err = json.Unmarshal(b, &p)
	return p.Version, err
}

// nativeCodex finds the platform binary the way bin/codex.js does.
func nativeCodex(prefix string) (string, error) {
	var pkg, triple string
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		pkg, triple = "codex-linux-x64", "x86_64-unknown-linux-musl"
	case "linux/arm64":
		pkg, triple = "codex-linux-arm64", "aarch64-unknown-linux-musl"
	case "darwin/amd64":
		pkg, triple = "codex-darwin-x64", "x86_64-apple-darwin"
	case "darwin/arm64":
		pkg, triple = "codex-darwin-arm64", "aarch64-apple-darwin"
	default:
		return "", fmt.Errorf("no codex binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, p := range []string{
		filepath.Join(prefix, "node_modules", "@openai", pkg, "vendor", triple, "bin", "codex"),
		filepath.Join(prefix, "node_modules", "@openai", "codex", "vendor", triple, "bin", "codex"),
	} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("codex native binary not found under " + prefix)
}

// agentClient runs `agent exec PROMPT` with AGENT_HOME=home.
func agentClient(bin, home, work string) client {
	return client{
		name: "agent",
		bin:  bin,
		args: []string{"exec", "hi"},
		env:  []string{"AGENT_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=bench"},
		dir:  work,
	}
}

// referenceClient runs `codex exec --skip-git-repo-check PROMPT` with
// CODEX_HOME=home.
func referenceClient(bin, home, work string) client {
	return client{
		name: "codex " + referenceVersion,
		bin:  bin,
		args: []string{"exec", "--skip-git-repo-check", "hi"},
		env:  []string{"CODEX_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=bench"},
		dir:  work,
	}
}

// writeConfig points both clients' config.toml (same schema) at baseURL
// through a custom provider "fake" speaking Responses over HTTP SSE, or
// WebSocket first when websocket is set (--websocket).
func writeConfig(home, baseURL string, websocket bool) error {
	cfg := fmt.Sprintf(`model = "test-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_KEY"
supports_websockets = %t
`, baseURL, websocket)
	return os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600)
}
