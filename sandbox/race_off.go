//go:build !race

package sandbox

const raceScale = 1
