//go:build race

package ws_test

// raceDetector says the race detector is on: it allocates on its own, so
// allocation bounds are looser.
const raceDetector = true
