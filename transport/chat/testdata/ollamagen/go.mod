module ollamagen

go 1.26

require github.com/ollama/ollama v0.17.4
