// Command solve finds the value of the empty Dots and Boxes board of the
// given size with the exact package's alpha-beta solver: the first
// player's final margin under best play by both. It reports each bound as
// the search narrows it, and the positions and CPU time it took.
//
//	go run ./games/dotsandboxes/exact/solve -rows 4 -cols 4
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/arenabots/arena/games/dotsandboxes/exact"
)

func main() {
	rows := flag.Int("rows", 4, "rows of boxes")
	cols := flag.Int("cols", 4, "columns of boxes")
	ttBits := flag.Int("tt", 24, "transposition table of 2^tt entries, 16 bytes each")
	flag.Parse()
	a, err := exact.NewAlphaBeta(*rows, *cols, *ttBits)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	t0 := cpu()
	v := a.ValueProgress(0, func(lo, hi int) {
		fmt.Printf("%dx%d: %d <= value <= %d after %d positions, %.1f CPU s\n", *rows, *cols, lo, hi, a.Nodes, (cpu() - t0).Seconds())
	})
	fmt.Printf("%dx%d: value %d (the first player's margin), %d positions, %.1f CPU s\n", *rows, *cols, v, a.Nodes, (cpu() - t0).Seconds())
}

// cpu is the process's CPU time: on a shared machine the wall clock
// measures the queue.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
