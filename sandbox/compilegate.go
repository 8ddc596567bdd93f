package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Compiling is a shared resource that a stranger can make dear: a module of
// 40 KB can keep the compiler's child busy for its whole CPU limit, and a
// salted copy of it passes the refusal cache. So compiles take a slot of a
// compileGate, which gives
//
//   - as many slots as the machine has cores (at least two, so that one
//     owner's compile never holds every slot: an owner has at most one);
//   - at most one compile per owner at a time (an account's second upload
//     waits for its first, and leaves the other slots to other owners);
//   - the slots to the waiters in the order they came, skipping those
//     whose owner is compiling;
//   - a daily budget of compile CPU per owner, which every compile spends,
//     refused ones too; an owner past it is refused (ErrCompileBudget)
//     until the next day (UTC).
//
// The platform's own compiles (owner ""), of modules accepted before, are
// neither held to one at a time nor counted: they wait for a slot only.

// DefaultCompileBudget is the compile CPU an owner may spend a day
// (Options.CompileBudget): about 85 compiles of a 3.8 MB Go bot, or 30 of
// modules that run the compiler out of its time.
const DefaultCompileBudget = 5 * time.Minute

// ErrCompileBudget is a compile refused because its owner has spent the
// day's compile CPU. It says nothing of the module.
var ErrCompileBudget = errors.New("sandbox: the day's compile time of this account is spent")

type compileGate struct {
	granted func(owner string) // for tests: called as a slot is given

	mu      sync.Mutex
	free    int
	busy    map[string]bool // owners with a compile running
	waiting []*compileWaiter
	budget  time.Duration
	day     int64                    // the UTC day the spent times are of
	spent   map[string]time.Duration // by owner, on day
}

type compileWaiter struct {
	owner string
	ready chan struct{} // closed when the slot is this waiter's, or err is set
	err   error         // the owner's budget ran out while it waited
}

func newCompileGate(slots int, budget time.Duration) *compileGate {
	if slots <= 0 {
		slots = max(2, runtime.NumCPU())
	}
	if budget <= 0 {
		budget = DefaultCompileBudget
	}
	return &compileGate{free: slots, busy: map[string]bool{}, budget: budget, spent: map[string]time.Duration{}}
}

// today resets the spent times on a new day. The caller holds g.mu.
func (g *compileGate) today() {
	if d := time.Now().Unix() / 86400; d != g.day {
		g.day = d
		clear(g.spent)
	}
}

// acquire waits for a slot for owner; release gives it back with the CPU
// time the compile took.
func (g *compileGate) acquire(ctx context.Context, owner string) error {
	g.mu.Lock()
	if g.overBudget(owner) {
		g.mu.Unlock()
		return g.budgetError()
	}
	w := &compileWaiter{owner: owner, ready: make(chan struct{})}
	g.waiting = append(g.waiting, w)
	g.grant()
	g.mu.Unlock()
	select {
	case <-w.ready:
		return w.err
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: hand it on
			if w.err == nil {
				g.releaseLocked(owner, 0)
			}
		default:
			g.remove(w)
		}
		return fmt.Errorf("sandbox: waiting to compile the module was cancelled: %w", context.Cause(ctx))
	}
}

func (g *compileGate) release(owner string, cpu time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releaseLocked(owner, cpu)
}

func (g *compileGate) releaseLocked(owner string, cpu time.Duration) {
	g.free++
	if owner != "" {
		delete(g.busy, owner)
		g.today()
		g.spent[owner] += cpu
	}
	g.grant()
}

// overBudget reports whether owner has spent the day's budget. The caller
// holds g.mu.
func (g *compileGate) overBudget(owner string) bool {
	g.today()
	return owner != "" && g.spent[owner] >= g.budget
}

func (g *compileGate) budgetError() error {
	return fmt.Errorf("%w (%v of CPU a day); compiles already accepted or refused are remembered and cost nothing", ErrCompileBudget, g.budget)
}

// grant hands free slots to the first waiters whose owner is not
// compiling, and turns away the waiters whose owner's budget ran out while
// they waited (an account's queued compiles would otherwise all run). The
// caller holds g.mu.
func (g *compileGate) grant() {
	for i := 0; i < len(g.waiting) && g.free > 0; {
		w := g.waiting[i]
		if w.owner != "" && g.busy[w.owner] {
			i++
			continue
		}
		if g.overBudget(w.owner) {
			w.err = g.budgetError()
			close(w.ready)
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			continue
		}
		g.free--
		if w.owner != "" {
			g.busy[w.owner] = true
		}
		if g.granted != nil {
			g.granted(w.owner)
		}
		close(w.ready)
		g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
	}
}

func (g *compileGate) remove(w *compileWaiter) {
	for i, x := range g.waiting {
		if x == w {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			return
		}
	}
}
