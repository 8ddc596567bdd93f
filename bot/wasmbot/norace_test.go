//go:build !race

package wasmbot_test

const raceEnabled = false
