// Package rng is the project's own pseudo-random generator.
//
// Anything that affects a match draws from here rather than math/rand, whose
// streams may change between Go releases: the same seed must give the same
// match on every machine and Go version, forever. The generator is SplitMix64
// (Steele, Lea and Flood, 2014): tiny, fast, and good enough for games.
package rng

import "math/bits"

// Source is a SplitMix64 stream. The zero value is a valid stream (seed 0).
type Source struct{ state uint64 }

// New returns a stream seeded with seed.
func New(seed uint64) *Source { return &Source{state: seed} }

// Mix hashes a seed and any number of labels into a new seed, so that one
// match seed can give independent streams (per seat, per purpose).
func Mix(seed uint64, labels ...uint64) uint64 {
	h := mix64(seed ^ 0x6a09e667f3bcc909)
	for _, l := range labels {
		h = mix64(h ^ mix64(l+0x9e3779b97f4a7c15))
	}
	return h
}

// Uint64 returns the next 64 random bits.
func (s *Source) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	return mix64(s.state)
}

// Intn returns a number in [0, n); n must be positive. It uses Lemire's
// multiply-shift with rejection, so there is no modulo bias.
func (s *Source) Intn(n int) int {
	if n <= 0 {
		panic("rng: Intn of non-positive n")
	}
	bound := uint64(n)
	for {
		hi, lo := bits.Mul64(s.Uint64(), bound)
		if lo >= bound || lo >= (-bound)%bound {
			return int(hi)
		}
	}
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
