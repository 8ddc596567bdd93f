package server

import (
	"os"
	"runtime"
)

// servingProcs is the GOMAXPROCS a server with `workers` in-process workers
// runs with, given the current setting (the runtime's default: the cores
// this process may use): the workers' Ps plus as many again as there are
// cores, so that the HTTP handlers, the matchmaker, the recorder and the
// garbage collector's workers always find Ps free. A worker's match is
// CPU-bound for its whole length, and a wasm bot's turn cannot be preempted
// by Go's scheduler at all (compiled guest code runs with its P held until
// it calls the host, on a thread locked to the instance,
// sandbox/instance.go), so with one P per worker a request waited for a
// turn to end or, for Go house bots, for the 10 ms preemption tick. The
// kernel then shares the cores between the threads; the matches' threads
// may be lowered below the rest (Options.MatchNice) so that it picks the
// server's.
//
// One spare P was not enough (BenchmarkListLatency, docs/performance.md):
// on the idle 2-core machine with 2 workers, 3 Ps gave a p99 of 12-16 ms
// at 1,000 requests/s and 4 gave 7-10 ms. A garbage collection takes a
// quarter of the Ps, rounded, for its own workers: of 3 Ps that is the one
// left to the requests. An explicit GOMAXPROCS in the environment is kept,
// and a server without workers keeps the default.
func servingProcs(current, workers int, explicit bool) int {
	if explicit || workers <= 0 {
		return current
	}
	return workers + current
}

// ServingProcs is the GOMAXPROCS a server with this many in-process workers
// sets when GOMAXPROCS is not in the environment (for the benchmarks).
func ServingProcs(current, workers int) int { return servingProcs(current, workers, false) }

// defaultProcs is the runtime's GOMAXPROCS before any server changed it.
var defaultProcs = runtime.GOMAXPROCS(0)

// setServingProcs applies servingProcs to this process.
func setServingProcs(workers int) {
	if n := servingProcs(defaultProcs, workers, os.Getenv("GOMAXPROCS") != ""); n != runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(n)
	}
}
