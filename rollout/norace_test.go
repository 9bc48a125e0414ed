//go:build !race

package rollout_test

const raceDetector = false
