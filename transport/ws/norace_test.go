//go:build !race

package ws_test

const raceDetector = false
