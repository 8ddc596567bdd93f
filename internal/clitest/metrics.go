package clitest

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Metric sums the series of a server's /metrics (at base) named prefix,
// with any labels, or those whose line starts with prefix when it names
// labels itself (`name{label="x"}`).
func Metric(t testing.TB, base, prefix string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if line[len(prefix):] != "" && !strings.ContainsAny(line[len(prefix):len(prefix)+1], " ,{}") {
			continue // a longer metric name
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		sum += v
	}
	return sum
}
