package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestPct(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, c := range []struct {
		name string
		d    []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 99, 0},
		{"one sample is every percentile", ms(7), 50, 7 * time.Millisecond},
		{"one sample, max", ms(7), 100, 7 * time.Millisecond},
		{"median of four: nearest rank 2", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100 is the 99th", ms(hundred...), 99, 99 * time.Millisecond},
		{"p99.9 of 100 is the largest", ms(hundred...), 99.9, 100 * time.Millisecond},
		{"p50 of 100", ms(hundred...), 50, 50 * time.Millisecond},
		{"max", ms(hundred...), 100, 100 * time.Millisecond},
	} {
		if got := pct(c.d, c.p); got != c.want {
			t.Errorf("%s: pct(%v) = %v, want %v", c.name, c.p, got, c.want)
		}
	}
}

// TestReport pins the output that internal/server's BenchmarkListLatency
// parses (its regular expression, copied), and that every request counts
// once, for its URL and in "all", errors included.
func TestReport(t *testing.T) {
	urls := []string{"http://h/a", "http://h/b?x=1&y=2"}
	var samples []sample
	for i := range 10 {
		samples = append(samples, sample{url: i % 2, latency: time.Duration(i+1) * time.Millisecond, err: i == 3})
	}
	var out bytes.Buffer
	report(&out, urls, samples)
	line := regexp.MustCompile(`(?m)^url=(\S+) n=(\d+) errors=(\d+) p50_ms=([0-9.]+) p90_ms=[0-9.]+ p99_ms=([0-9.]+) p999_ms=[0-9.]+ max_ms=([0-9.]+) late_ms=([0-9.]+)$`)
	got := line.FindAllStringSubmatch(out.String(), -1)
	if len(got) != 3 || strings.Count(out.String(), "\n") != 3 {
		t.Fatalf("want 3 lines in the benchmark's format, got:\n%s", out.String())
	}
	for i, want := range [][]string{
		{"http://h/a", "5", "0", "5.000", "9.000"},
		{"http://h/b?x=1&y=2", "5", "1", "6.000", "10.000"},
		{"all", "10", "1", "5.000", "10.000"},
	} {
		m := got[i]
		if m[1] != want[0] || m[2] != want[1] || m[3] != want[2] || m[4] != want[3] || m[5] != want[4] {
			t.Errorf("line %d = %q, want url %s n %s errors %s p50 %s p99 %s", i, m[0], want[0], want[1], want[2], want[3], want[4])
		}
	}
}
