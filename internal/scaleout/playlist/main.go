// Command playlist plays a list of matches one after another in one process
// and prints the CPU time they took: the baseline of scripts/scaling.sh,
// which plays the same list through `arena serve` and its workers. (`arena
// tournament` cannot be the baseline: its boards' seeds use all 64 bits and
// a challenge's seed only 63; `arena match` per line would add the 0.1 s of
// CPU a process takes to start.)
//
// Input, one match a line: GAME SEED SPEC SPEC... (seats in order).
// Output: matches, then user+system CPU seconds of the loop alone.
// PLAYLIST_CPUPROFILE=FILE writes a CPU profile of the loop, to set beside a
// worker's (docs/performance.md, scale-out).
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "playlist:", err)
		os.Exit(1)
	}
}

type line struct {
	game  game.Game
	seed  uint64
	specs []spec.Spec
}

func run() error {
	var list []line
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			return fmt.Errorf("line %q: want GAME SEED SPEC SPEC", sc.Text())
		}
		g, err := games.Lookup(f[0])
		if err != nil {
			return err
		}
		seed, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return fmt.Errorf("line %q: %w", sc.Text(), err)
		}
		specs, err := spec.ParseAll(f[2:])
		if err != nil {
			return fmt.Errorf("line %q: %w", sc.Text(), err)
		}
		list = append(list, line{g, seed, specs})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if f := os.Getenv("PLAYLIST_CPUPROFILE"); f != "" {
		w, err := os.Create(f)
		if err != nil {
			return err
		}
		defer w.Close()
		pprof.StartCPUProfile(w)
		defer pprof.StopCPUProfile()
	}
	before := cpu()
	for _, l := range list {
		cfg := game.Config{Seed: l.seed, Players: len(l.specs)}
		if _, err := (match.Runner{}).Play(context.Background(), l.game, cfg, local.Seats(l.specs)); err != nil {
			return fmt.Errorf("%s seed %d %v: %w", l.game.Info().ID, l.seed, l.specs, err)
		}
	}
	fmt.Printf("%d %.3f\n", len(list), cpu()-before)
	return nil
}

// cpu is this process's user+system time so far, in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
