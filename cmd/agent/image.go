package main

import (
	"fmt"
	"strings"

	"github.com/agentcli/agent/tools"
)

// imageURLs reads -i/--image files into data: URLs ([tools.ImageDataURL]).
func imageURLs(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		for _, path := range strings.Split(p, ",") {
			if path = strings.TrimSpace(path); path == "" {
				continue
			}
			u, err := tools.ImageDataURL(path)
			if err != nil {
				return nil, fmt.Errorf("--image: %w", err)
			}
			out = append(out, u)
		}
	}
	return out, nil
}
