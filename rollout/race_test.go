//go:build race

package rollout_test

// raceDetector says the race detector is on: it allocates on its own, so
// allocation bounds do not hold.
const raceDetector = true
