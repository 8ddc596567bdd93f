package server

import (
	"os"
	"runtime"
)

// servingProcs is the GOMAXPROCS a server with `workers` in-process workers
// runs with, given the current setting: one more than the workers, so that
// the HTTP handlers, the matchmaker and the recorder always find a P free.
// A worker's match is CPU-bound for its whole length, and a wasm bot's turn
// cannot be preempted by Go's scheduler at all (compiled guest code runs
// with its P held until it calls the host, on a thread locked to the
// instance, sandbox/instance.go), so with one P per worker a request waited
// for a turn to end or, for Go house bots, for the 10 ms preemption tick.
// With a spare P the request's goroutine runs at once and the kernel shares
// the cores between the threads, where a thread woken by the network gets
// the core within about a millisecond. An explicit GOMAXPROCS in the
// environment is kept, and a server without workers keeps the default.
//
// Which of the threads gets a contended core is the kernel's choice; the
// matches' threads are lowered below the rest (Options.MatchNice) so that
// it picks the server's. More Ps than this did not help in the benchmark
// (BenchmarkListLatency's procs4 setting): a lowered thread holds its P
// while the kernel keeps it waiting either way.
func servingProcs(current, workers int, explicit bool) int {
	if explicit || workers <= 0 || current > workers {
		return current
	}
	return workers + 1
}

// ServingProcs is the GOMAXPROCS a server with this many in-process workers
// sets when GOMAXPROCS is not in the environment (for the benchmarks).
func ServingProcs(current, workers int) int { return servingProcs(current, workers, false) }

// setServingProcs applies servingProcs to this process.
func setServingProcs(workers int) {
	cur := runtime.GOMAXPROCS(0)
	if n := servingProcs(cur, workers, os.Getenv("GOMAXPROCS") != ""); n != cur {
		runtime.GOMAXPROCS(n)
	}
}
