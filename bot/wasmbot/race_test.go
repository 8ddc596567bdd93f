//go:build race

package wasmbot_test

// raceEnabled: the race detector slows wasm bots down too much for timing checks.
const raceEnabled = true
