//go:build race

package sandbox

// raceScale widens the compiler's limits and the backstops in
// race-instrumented builds, whose compiler and host code are many times
// slower and bigger.
const raceScale = 8
