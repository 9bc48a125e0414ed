package responsestest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Rounds is the script of a load test: rounds rounds of clients streams,
// each ending in response.completed. Every stream of a round waits at a
// [Quorum] until all clients of the round are in flight, so the server
// sees exactly clients requests at once. Drive it with [RunRounds] and
// count connections with [Server.Conns].
func Rounds(clients, rounds int) Script {
	var s Script
	for r := range rounds {
		for range clients {
			s = append(s, Stream(Created("r"), Quorum(fmt.Sprint("round ", r), clients),
				TextDelta("m", "hi"), Completed("r")))
		}
	}
	return s
}

// RunRounds POSTs rounds rounds of clients concurrent streaming requests
// to url (a .../responses URL) with client, reading each answer whole; a
// round starts when the last one's answers have all been read. It returns
// the errors of requests that failed or did not end in
// response.completed.
func RunRounds(ctx context.Context, client *http.Client, url string, clients, rounds int) error {
	var (
		mu   sync.Mutex
		errs []error
	)
	for r := range rounds {
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				if err := streamOnce(ctx, client, url); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("round %d: %w", r, err))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	return errors.Join(errs...)
}

// streamOnce POSTs one streaming request and reads the answer whole.
func streamOnce(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"stream":true}`))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "response.completed"):
		return fmt.Errorf("status %d: %q", resp.StatusCode, b)
	}
	return nil
}
