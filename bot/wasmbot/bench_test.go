package wasmbot_test

import "testing"

// BenchmarkDotsMatch is a whole 60-turn Dots and Boxes match between two
// trivial Go wasm bots, the module already compiled (a warm cache): two
// instantiations, 120 observations and answers, the game and the replay.
func BenchmarkDotsMatch(b *testing.B) {
	p := dotsBotPath(b)
	playDots(b, 1, p, p)
	b.ResetTimer()
	for b.Loop() {
		playDots(b, 1, p, p)
	}
}
