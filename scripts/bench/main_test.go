package main

import (
	"slices"
	"testing"
)

// TestBenchValuesReadsGoTestOutput: the figures are read per
// sub-benchmark and unit from `go test -bench` output, whatever the -N
// suffix, and a benchmark without sub-benchmarks files under "".
func TestBenchValuesReadsGoTestOutput(t *testing.T) {
	out := `goos: linux
BenchmarkRoundTrip/go-2         	   20000	     31300 ns/op	      2482 fuel/op
BenchmarkRoundTrip/c-2          	   20000	     15060 ns/op	      1254 fuel/op
BenchmarkRoundTrip/go-2         	   20000	     29100 ns/op	      2482 fuel/op
BenchmarkChannelPingPong-2      	   20000	       310 ns/op
BenchmarkRoundTrip/c-nice-2     	   20000	     51000 ns/op	     48000 cpu-ns/op	      1254 fuel/op	       340.0 pingpong-cpu-ns/op	       350.5 pingpong-ns/op
BenchmarkSearch/c               	      10	 512 metered-ns/op	 400 unmetered-ns/op	 1.187 cpu-ratio
PASS
`
	rt := benchValues(out, "RoundTrip", "ns/op")
	if !slices.Equal(rt["go"], []float64{31300, 29100}) || !slices.Equal(rt["c"], []float64{15060}) {
		t.Fatalf("round trip: %v", rt)
	}
	if got := benchValues(out, "RoundTrip", "fuel/op")["c"]; !slices.Equal(got, []float64{1254}) {
		t.Fatalf("fuel: %v", got)
	}
	if got := benchValues(out, "ChannelPingPong", "ns/op")[""]; !slices.Equal(got, []float64{310}) {
		t.Fatalf("ping-pong: %v", got)
	}
	if got := benchValues(out, "RoundTrip", "pingpong-ns/op")["c-nice"]; !slices.Equal(got, []float64{350.5}) {
		t.Fatalf("the round trip's ping-pong: %v", got)
	}
	if got := benchValues(out, "Search", "cpu-ratio")["c"]; !slices.Equal(got, []float64{1.187}) {
		t.Fatalf("search: %v", got)
	}
	if m := median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Fatalf("median %v", m)
	}
}
