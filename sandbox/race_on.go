//go:build race

package sandbox

// raceScale widens the compiler's limits in race-instrumented builds, whose
// compiler is many times slower and bigger.
const raceScale = 8
