// Command openloop sends HTTP GETs at a fixed rate, open loop, and reports
// latency percentiles per URL. Unlike a closed-loop tool (wrk, or hey with
// -q, whose workers wait for an answer before the next request), it sends
// request i at start+i/rate whether or not earlier ones have been answered,
// and counts each latency from that intended time: a server that stalls for
// 100 ms is charged 100 ms on every request it should have answered in that
// time, not on one (no coordinated omission).
//
//	openloop -rate 1000 -duration 20s -warmup 3s [-nice -10] URL [URL...]
//
// Requests go to the URLs in turn, so each gets rate/len(URLs) per second.
// The output is one line per URL and one for all of them:
//
//	url=URL n=N errors=E p50_ms=... p90_ms=... p99_ms=... p999_ms=... max_ms=... late_ms=...
//
// late_ms is how late the sender itself was at the 99th percentile (its own
// share of the latency, when the machine is loaded).
//
// -nice N runs the sender at nice value N (below 0 needs CAP_SYS_NICE or
// RLIMIT_NICE), and a first line says which value it runs at:
//
//	openloop: nice -10
//	openloop: nice 0 (setting -10: operation not permitted)
//
// Raised, a sender on the server's machine stands in for a client on a
// machine of its own: what it sends late is its own lateness, not the
// server's, and whatever CPU it takes while raised, the server's threads
// wait for, which counts against the server, so the figure errs on the
// server's side. Standard library only:
// internal/server's BenchmarkListLatency builds and runs it as a second process.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

type sample struct {
	url     int
	latency time.Duration // from the intended send time to the end of the body
	late    time.Duration // how late the request left
	err     bool
}

func main() {
	rate := flag.Float64("rate", 1000, "requests per second, all URLs together")
	dur := flag.Duration("duration", 20*time.Second, "how long to measure, after the warm-up")
	warmup := flag.Duration("warmup", 3*time.Second, "how long to send before measuring")
	timeout := flag.Duration("timeout", 10*time.Second, "a request's time limit (counted as an error)")
	niceness := flag.Int("nice", 0, "run the sender at this nice value (below 0: ahead of the server on a shared machine; needs CAP_SYS_NICE)")
	flag.Parse()
	urls := flag.Args()
	if len(urls) == 0 || *rate <= 0 {
		fmt.Fprintln(os.Stderr, "usage: openloop [-rate R] [-duration D] [-warmup W] URL...")
		os.Exit(2)
	}
	if *niceness != 0 {
		if err := setNice(*niceness); err != nil {
			fmt.Printf("openloop: nice 0 (setting %d: %v)\n", *niceness, err)
		} else {
			fmt.Printf("openloop: nice %d\n", *niceness)
		}
	}
	samples := run(urls, *rate, *warmup, *dur, *timeout)
	report(os.Stdout, urls, samples)
}

// run sends the requests and returns one sample per request.
func run(urls []string, rate float64, warmup, dur, timeout time.Duration) []sample {
	client := &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 1024,
			IdleConnTimeout:     time.Minute,
		},
	}
	interval := time.Duration(float64(time.Second) / rate)
	total := int((warmup + dur) / interval)
	nwarm := int(warmup / interval)
	samples := make([]sample, total)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range total {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &samples[i]
			s.url = i % len(urls)
			s.late = time.Since(due)
			s.err = get(client, urls[s.url]) != nil
			s.latency = time.Since(due)
		}()
	}
	wg.Wait()
	return samples[nwarm:]
}

func get(c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func report(w io.Writer, urls []string, samples []sample) {
	for i, u := range urls {
		line(w, u, samples, func(s sample) bool { return s.url == i })
	}
	if len(urls) > 1 {
		line(w, "all", samples, func(sample) bool { return true })
	}
}

func line(w io.Writer, name string, samples []sample, keep func(sample) bool) {
	var lat, late []time.Duration
	errs := 0
	for _, s := range samples {
		if !keep(s) {
			continue
		}
		if s.err {
			errs++
		}
		lat = append(lat, s.latency)
		late = append(late, s.late)
	}
	slices.Sort(lat)
	slices.Sort(late)
	fmt.Fprintf(w, "url=%s n=%d errors=%d p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f late_ms=%.3f\n",
		name, len(lat), errs, ms(pct(lat, 50)), ms(pct(lat, 90)), ms(pct(lat, 99)), ms(pct(lat, 99.9)), ms(pct(lat, 100)), ms(pct(late, 99)))
}

// pct is the p-th percentile of sorted d (nearest rank).
func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(float64(len(d))*p/100+0.999999) - 1
	return d[max(0, min(i, len(d)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
