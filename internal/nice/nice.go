// Package nice lowers the CPU priority of the threads that play matches, so
// that the rest of a server (answering requests, recording results) gets a
// core ahead of them when both want one. A match is CPU-bound for its whole
// length; the kernel shares a core between threads by their nice values, so
// a match thread a few levels below the process still gets every cycle the
// server does not want, and a request that arrives is run at once.
//
// A lowering may also, or instead, make the threads batch threads (Batch):
// same weight, so the same share of a core beside other processes, but a
// thread that wakes to serve a request runs ahead of them (lowerThread says
// how the kernel does it).
//
// Only threads the lowering goroutine keeps for good are lowered: the
// goroutine stays locked to its thread (runtime.LockOSThread) until it
// ends, and the runtime then ends the thread with it, so no other goroutine
// ever runs on a lowered thread.
package nice

import (
	"context"
	"math"
	"runtime"
)

type key struct{}

// Batch, added to a number of levels (With, Run, Lower: Batch+3, or Batch
// alone for none), also makes the lowered threads batch threads with a long
// time slice (lowerThread). The sum travels as the one int that says how
// far matches are lowered (worker.Options.Nice), so that everything that
// passes it on or asks whether it is above 0 needs no change.
const Batch = 1 << 8

// levels is the number of nice levels in lowering n (n > 0).
func levels(n int) int { return n &^ Batch }

// With returns ctx carrying n: the threads started for that context's work
// that lower themselves (From) run n nice levels below the process.
func With(ctx context.Context, n int) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, key{}, n)
}

// From is the number of levels ctx asks threads to be lowered by (0: none).
func From(ctx context.Context) int {
	n, _ := ctx.Value(key{}).(int)
	return n
}

// Lower lowers the calling thread's priority by n nice levels (to at most
// the lowest, 19), and with Batch in n makes it a batch thread. The caller must be locked to its thread; when Lower
// reports true it must stay locked until its goroutine ends (no
// runtime.UnlockOSThread), so that the thread ends with it. On false
// (n <= 0, or a system that cannot lower one thread) nothing changed.
func Lower(n int) bool {
	if n <= 0 {
		return false
	}
	return lowerThread(levels(n), n&Batch != 0)
}

// Run calls f on a goroutine of its own, on a thread lowered by n levels
// that ends with it, and waits for f to return. With n <= 0 it calls f on
// the calling goroutine.
func Run(n int, f func()) {
	if n <= 0 {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if !Lower(n) {
			defer runtime.UnlockOSThread()
		}
		f()
	}()
	<-done
}

// Slowdown is how many times longer a CPU-bound thread lowered by n levels
// takes than one at the process's own level, when both compete for a core
// with the same work: Linux gives each nice level about 1.25 times the CPU
// share of the next (its weight table runs from 1024 at 0 to 110 at 10 and
// 15 at 19). A wall-clock limit meant for an unlowered thread is scaled by
// it, so that it is reached at the same load.
func Slowdown(n int) float64 {
	if n <= 0 {
		return 1
	}
	// Batch keeps the thread's weight: its share of a contended core is
	// the unlowered one.
	return math.Pow(1.25, float64(min(levels(n), 39)))
}
