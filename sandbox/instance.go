package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/arenabots/arena/internal/nice"
	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
)

// A Tank is a bot's fuel tank as the protocol defines it. Whoever starts
// instances owns it: a fresh Tank per instance gives the per-turn rule (a new
// instance starts empty), one Tank shared by every instance of a match gives a
// chess clock that survives restarts (PerTurn 0, Left = Cap = the game's
// allowance).
//
// Set the fields before the first Start and do not write them after. The
// running instance keeps Left up to date under the tank's lock; read it with
// Fuel. A tank has one owner at a time, the instance started on it last:
// an older instance never writes it again, even should it still be running
// (it is being stopped), so instances sharing a tank cannot race on it.
type Tank struct {
	Left    int64 // fuel in the tank
	PerTurn int64 // added when an observation is delivered
	Cap     int64 // the tank is cut to Cap after adding
	// Answer, when non-zero, is the most one answer may spend; the rest of
	// Left waits for later answers. A chess clock needs it: its whole tank
	// spent in one answer would not fit the backstop (docs/fuel.md).
	Answer int64

	mu    sync.Mutex
	owner *Instance
}

// Fuel is the fuel in the tank now.
func (t *Tank) Fuel() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.Left
}

// own makes in the tank's owner.
func (t *Tank) own(in *Instance) {
	t.mu.Lock()
	t.owner = in
	t.mu.Unlock()
}

// release ends in's ownership, if it still has it.
func (t *Tank) release(in *Instance) {
	t.mu.Lock()
	if t.owner == in {
		t.owner = nil
	}
	t.mu.Unlock()
}

// left reads the tank for in; ok is false when in no longer owns it.
func (t *Tank) left(in *Instance) (v int64, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.Left, t.owner == in
}

// set writes the tank for in, if in still owns it.
func (t *Tank) set(in *Instance, v int64) {
	t.mu.Lock()
	if t.owner == in {
		t.Left = v
	}
	t.mu.Unlock()
}

// Limits are the per-instance limits of the protocol. Zero fields take the
// values of DefaultLimits.
type Limits struct {
	// StartAllowance is the fuel from instantiation to the first stdin read,
	// separate from the tank.
	StartAllowance int64
	// Slice is how much fuel the guest gets between host calls. Every slice
	// boundary is a Go GC safe point and the place the kill flag is checked;
	// boundaries fall at fixed instruction counts, so they change nothing a
	// bot can observe.
	Slice int64
	// CPU is the backstop per answer: the CPU time the guest may take,
	// counting the host calls it makes, from the question to the answer.
	// The prices keep the most fuel one answer can spend well under half
	// of it (docs/fuel.md), so it stops only a bug in the meter or the
	// host, never a bot within its fuel, however loaded the machine is.
	CPU time.Duration
	// Wall is the last resort per answer, on wall-clock time, for a guest
	// whose CPU time does not advance or cannot be read (then CPU bounds
	// the wall-clock time instead). It is far above CPU, so that no load a
	// machine sees in practice reaches it first.
	Wall time.Duration
	// MaxLine is the longest answer line; a longer one is malformed.
	MaxLine int
}

// DefaultLimits are the protocol's values. The backstops are widened by
// raceScale in race-instrumented builds (tests only), whose host code is
// many times slower: there a stack-bound crash costs over 0.1 s of CPU
// (wazero's stack copies under the race detector), and a hostile module
// must end in its own status, never in timeout.
var DefaultLimits = Limits{
	StartAllowance: 100_000_000,
	Slice:          1_000_000,
	CPU:            2000 * time.Millisecond * raceScale,
	Wall:           60 * time.Second * raceScale,
	MaxLine:        protocol.MaxLine,
}

func (l Limits) withDefaults() Limits {
	if l.StartAllowance == 0 {
		l.StartAllowance = DefaultLimits.StartAllowance
	}
	if l.Slice == 0 {
		l.Slice = DefaultLimits.Slice
	}
	if l.CPU == 0 {
		l.CPU = DefaultLimits.CPU
	}
	if l.Wall == 0 {
		l.Wall = max(DefaultLimits.Wall, 30*l.CPU)
	}
	if l.MaxLine == 0 {
		l.MaxLine = DefaultLimits.MaxLine
	}
	return l
}

// Config is what one instance is started with.
type Config struct {
	Seed   uint64    // seeds random_get
	Tank   *Tank     // required
	Stderr io.Writer // the bot's log; nil discards it
	Limits Limits
	// Profile, when set, records where the instance's fuel goes
	// (profile.go); it changes no answer and no fuel figure.
	Profile *Profile
}

// The virtual clocks: one unit of fuel is one nanosecond, counted from this
// wall-clock epoch (2026-01-01T00:00:00Z), plus whatever the bot slept.
const clockEpoch = 1_767_225_600

// How long Stop waits for the guest to notice the kill flag. The guest checks
// it at least every Slice instructions, so this only guards against a bug.
const stopGrace = 5 * time.Second * raceScale // one host call can take seconds under the race detector (random_get of 240 MiB)

// The panics that abort a guest from a host function; wazero turns them
// into an error returned from the guest's _start.
var (
	errOutOfFuel = errors.New("out of fuel")
	errStopped   = errors.New("stopped by the host")
)

// An Instance is one running bot: a WASI command whose _start runs on a
// goroutine of its own, the guest goroutine, a coroutine that pauses at its
// answers and is resumed by the next question (handoff.go).
//
// The fuel books: the guest's counter (the exported global) holds the current
// slice, budget holds the rest, so the live tank is budget + counter. All of
// the fields below the line are touched by the guest goroutine only (host
// functions and stdio run on it), or by whoever resumes it while it is
// paused; the other side talks to it through the hand-off and the kill flag.
type Instance struct {
	limits Limits
	// widen: the CPU limit is the default one, widened on a machine whose
	// memory is slower than the calibration's (memoryscale.go).
	widen bool
	tank  *Tank

	// The hand-off (handoff.go).
	threaded bool                 // the guest runs on a lowered thread of its own
	next     func() (event, bool) // resumes the guest until it pauses (true) or ends
	drive    sync.Mutex           // held by whoever resumes the guest
	requests chan struct{}        // threaded: a resumption for the thread to make
	results  chan result          // a resumption made by a goroutine of the hand-off
	unwind   sync.Once            // Stop resumes the guest to its end once
	observe  func(int64) []byte   // the question under way, until the guest reads stdin
	reply    protocol.Reply       // the answer the guest paused at
	answers  chan protocol.Reply  // when set, gets the replies instead (tests of stdoutWriter alone)
	done     chan struct{}        // closed when the guest has ended and is freed
	death    protocol.Reply       // why it ended; written before done closes

	killed   atomic.Bool
	killCh   chan struct{}
	killOnce sync.Once

	// The guest's CPU time (handoff.go): cpu is the clock of the thread it
	// is locked to and counting on, nil when it is not; cpuDone is its
	// CPU time until its last lock ended.
	cpu     atomic.Pointer[guestClock]
	cpuDone atomic.Int64
	pages   atomic.Uint32 // the linear memory's size at the guest's last call of the host
	// turnCPU is the guest's CPU time (guestCPU, ns) when the question
	// outstanding was delivered, or -1 before that (or when it was
	// delivered soon after it was asked): the backstop counts from there
	// (Ask). askedAt is when the question was asked (sinceEpoch).
	turnCPU atomic.Int64
	askedAt atomic.Int64

	// ---- guest goroutine only ----
	yield       func(event) bool  // pauses the guest (the coroutine's yield)
	detached    bool              // resumed for this question by a goroutine of the hand-off
	locked      bool              // locked to its thread, whose CPU time counts (cpu)
	fuel        api.MutableGlobal // the counter; nil until the module is instantiated
	mem         api.Memory        // the guest's linear memory, whose size sets the reserve
	price       api.MutableGlobal // the guest's surcharge per memory access, set here
	priceNow    int64             // its value
	callPrice   api.MutableGlobal // the guest's surcharge per call, set here
	callNow     int64             // its value
	functions   uint64            // the functions the module defines, for meter.CallPrice
	branchPrice api.MutableGlobal // the guest's surcharge per branch, set here
	branchNow   int64             // its value
	// surcharges are the guest's meter.Surcharges, set with the prices.
	surcharges  []api.MutableGlobal
	codeBytes   uint64 // the size of its code section, for meter.BranchPrice
	tablePages  uint64 // its tables' size in pages, priced with the memory
	answerFrom  int64  // spentTotal when the last observation was delivered
	budget      int64  // fuel not yet handed to the guest
	given       int64  // all fuel ever put in the counter; spent = given - counter
	slept       int64  // virtual nanoseconds slept
	started     bool   // past the first stdin read: fuel comes from the tank
	startup     int64  // fuel spent before the first stdin read
	dry         bool   // ran out of fuel
	outstanding bool   // an observation was delivered and awaits its answer
	delivered   int64  // the fuel the outstanding answer may spend, at its delivery
	held        int64  // the tank beyond delivered, held back for later answers (Tank.Answer)
	pending     []byte // the rest of the observation line being read
	line        []byte // the answer line being written
	overflow    bool   // the line being written is over MaxLine

	memories  []experimental.LinearMemory // allocated for this instance; freed when it ends
	dataSpans []meter.Span                // its module's (Module.dataSpans)
	prof      *profiler                   // nil unless profiled
}

type instanceKey struct{}

// Start starts an instance of m. It returns at once: the module's start-up
// runs on the guest goroutine, as part of the first Ask, until its first
// stdin read, and a failure there is reported by that Ask.
func (r *Runtime) Start(ctx context.Context, m *Module, cfg Config) (*Instance, error) {
	if cfg.Tank == nil {
		return nil, errors.New("sandbox: Start without a Tank")
	}
	cm, err := r.acquire(ctx, m)
	if err != nil {
		return nil, err
	}
	if cfg.Profile != nil {
		if cm, err = r.profiled(ctx, m); err != nil {
			r.release(m)
			return nil, err
		}
	}
	limits := cfg.Limits.withDefaults()
	if cfg.Profile != nil && cfg.Limits.CPU == 0 {
		limits.CPU *= profileSlowdown
		limits.Wall *= profileSlowdown
	}
	if cfg.Limits.Wall == 0 {
		// A lowered guest thread gets a smaller share of a contended
		// core; its wall-clock backstop grows with it, so that it is
		// reached at the same load as an unlowered guest's.
		limits.Wall = time.Duration(float64(limits.Wall) * nice.Slowdown(nice.From(ctx)))
	}
	in := &Instance{
		limits:  limits,
		widen:   cfg.Limits.CPU == 0,
		tank:    cfg.Tank,
		results: make(chan result, 1),
		done:    make(chan struct{}),
		killCh:  make(chan struct{}),
	}
	in.dataSpans = m.dataSpans
	in.prof = newProfiler(cfg.Profile, in)
	cfg.Tank.own(in)
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	mc := wazero.NewModuleConfig().
		WithName(""). // anonymous, so many instances of one module can live at once
		WithArgs("bot").
		WithStdin(stdinReader{in}).
		WithStdout(stdoutWriter{in}).
		WithStderr(stderr).
		WithRandSource(&randReader{src: rng.New(cfg.Seed)}).
		WithWalltime(in.walltime, 1).
		WithNanotime(in.nanotime, 1).
		WithNanosleep(in.nanosleep).
		WithOsyield(func() {}).
		// _start is called by run, after the counter global is in hand.
		WithStartFunctions()
	// The guest must not depend on the caller's context: it lives as long as
	// the match, and is stopped through Stop.
	gctx := context.WithValue(context.WithoutCancel(ctx), instanceKey{}, in)
	gctx = experimental.WithMemoryAllocator(gctx, experimental.MemoryAllocatorFunc(in.allocate))
	in.begin(nice.From(ctx), func() { in.run(gctx, r.wz, cm, mc, func() { r.release(m) }) })
	return in, nil
}

// run is the guest's life, on the guest goroutine; release is called when
// it ends.
func (in *Instance) run(ctx context.Context, wz wazero.Runtime, cm wazero.CompiledModule, mc wazero.ModuleConfig, release func()) {
	defer close(in.done)
	defer release()
	// The guest goroutine is a coroutine, which must end as it began, not
	// locked to a thread (runtime/coro.go).
	defer in.unlockThread()
	// wazero frees a module's memory when the module is closed, but when
	// instantiation fails (a start function that traps, exits or runs out
	// of fuel, a data segment out of bounds) it returns no module to close,
	// and the mapping, every page the start function touched, stayed
	// allocated for good: 248 MiB a restart.
	defer in.freeMemories()
	// wazero recovers panics inside guest calls; one outside them (while
	// instantiating) must not take the whole process down.
	defer func() {
		if p := recover(); p != nil {
			in.end(fmt.Errorf("sandbox: %v", p))
		}
	}()
	if in.killed.Load() { // stopped before its first question
		in.end(errStopped)
		return
	}
	in.budget = in.limits.StartAllowance
	mod, err := wz.InstantiateModule(ctx, cm, mc)
	if err != nil {
		in.end(err)
		return
	}
	defer mod.Close(context.Background())
	in.bind(mod)
	start := mod.ExportedFunction("_start")
	if start == nil { // the meter refuses such modules; be safe anyway
		in.end(errors.New("the module has no _start"))
		return
	}
	_, err = start.Call(ctx)
	in.end(err)
}

// allocate makes the instance's linear memory and keeps it, for freeMemories.
func (in *Instance) allocate(capacity, max uint64) experimental.LinearMemory {
	m := memoryAllocator.Allocate(capacity, max)
	if mm, ok := m.(*mappedMemory); ok && len(in.memories) == 0 {
		mm.dataSpans = in.dataSpans // memory 0, the one data segments write
	}
	in.memories = append(in.memories, m)
	return m
}

// freeMemories frees the instance's memory once the guest has ended, should
// wazero not have done it (freeing twice does nothing).
func (in *Instance) freeMemories() {
	for _, m := range in.memories {
		m.Free()
	}
	in.memories = nil
}

// bind finds the counter global of the calling module.
func (in *Instance) bind(mod api.Module) {
	if in.fuel != nil {
		return
	}
	if g, ok := mod.ExportedGlobal(meter.GlobalExport).(api.MutableGlobal); ok {
		in.fuel = g
		in.mem = mod.Memory()
		in.price, _ = mod.ExportedGlobal(meter.PriceExport).(api.MutableGlobal)
		in.callPrice, _ = mod.ExportedGlobal(meter.CallPriceExport).(api.MutableGlobal)
		in.branchPrice, _ = mod.ExportedGlobal(meter.BranchPriceExport).(api.MutableGlobal)
		in.priceNow, in.callNow, in.branchNow = -1, -1, -1
		in.surcharges = make([]api.MutableGlobal, len(meter.Surcharges))
		for i, s := range meter.Surcharges {
			in.surcharges[i], _ = mod.ExportedGlobal(s.Name).(api.MutableGlobal)
		}
		if g := mod.ExportedGlobal(meter.CodeBytesExport); g != nil {
			in.codeBytes = g.Get()
		}
		if g := mod.ExportedGlobal(meter.FunctionsExport); g != nil {
			in.functions = g.Get()
		}
		if g := mod.ExportedGlobal(meter.TablePagesExport); g != nil {
			in.tablePages = g.Get()
		}
	}
}

// reserve sets the guest's price of a memory access for the size of its
// memory now and its prices of a call and a branch, at the dear prices in
// start-up and past meter.DearAfter of an answer (cost models 4 and 5), and
// returns what the tank must hold when the guest passes a check: the most
// its code can charge before the next one, Reserve units of which every
// one may be a call_indirect, which pays an access and a call, or a
// branch. The guest's checks compare its counter
// with meter.Reserve alone, so the rest, extra, stays in the budget (slice).
// The guest calls the host (refill) after every memory.grow, so the price
// never lags the memory's size, and the host changes them nowhere else:
// they are the same between two checks.
func (in *Instance) reserve() (all, extra int64) {
	p := in.accessPrice()
	changed := false
	if p != in.priceNow && in.price != nil {
		in.price.Set(uint64(p))
		in.priceNow, changed = p, true
	}
	dear := in.dear()
	c := meter.CallPrice(in.functions, dear)
	if c != in.callNow && in.callPrice != nil {
		in.callPrice.Set(uint64(c))
		in.callNow, changed = c, true
	}
	bp := meter.BranchPrice(in.codeBytes, dear)
	if bp != in.branchNow && in.branchPrice != nil {
		in.branchPrice.Set(uint64(bp))
		in.branchNow, changed = bp, true
	}
	if changed {
		for i, g := range in.surcharges {
			if g != nil {
				g.Set(uint64(meter.Surcharges[i].Value(p, c, bp)))
			}
		}
	}
	extra = meter.Reserve * max(p+c, bp)
	return meter.Reserve + extra, extra
}

// accessPrice is the surcharge per memory access now: for the size of the
// memory and the tables, at the dear prices in start-up and past
// meter.DearAfter of an answer.
func (in *Instance) accessPrice() int64 {
	var pages uint64
	if in.mem != nil {
		pages = uint64(in.mem.Size()) / meter.PageSize
		in.pages.Store(uint32(pages))
	}
	return meter.AccessPrice(pages+in.tablePages, in.dear())
}

// dear tells whether the guest pays the dear prices now: in start-up, and
// past meter.DearAfter of an answer.
func (in *Instance) dear() bool {
	return !in.started || in.spentTotal()-in.answerFrom >= meter.DearAfter
}

// counter is the guest's fuel counter now.
func (in *Instance) counter() int64 {
	if in.fuel == nil {
		return 0
	}
	return int64(in.fuel.Get())
}

// live is the fuel left: in the tank once started, of the start-up allowance before.
func (in *Instance) live() int64 { return in.budget + in.counter() }

// spentTotal is every unit the instance has spent, the basis of its clocks.
func (in *Instance) spentTotal() int64 { return in.given - in.counter() }

// slice puts up to a slice of the live fuel v in the counter, the rest in
// the budget. The counter gets Reserve on top of the slice, since the
// guest calls refill when it falls below Reserve; the budget keeps the
// reserve's surcharge for memory accesses, so that a guest passing a check
// always has the whole reserve in the tank.
func (in *Instance) slice(v int64) int64 {
	_, extra := in.reserve()
	s := min(v-extra, in.limits.Slice+meter.Reserve)
	in.given += s - in.counter()
	in.fuel.Set(uint64(s))
	in.budget = v - s
	return s
}

// refill is called by the metered code at a check that found the counter
// below meter.Reserve after charging charge. It hands out the next slice,
// or stops the guest when the host wants it stopped or the tank cannot pay
// for the charge and the reserve: the most the guest's code can charge
// before its next check, which is then never overdrawn. A guest stopped
// here is given its charge back, since the code it paid for does not run,
// so it has spent exactly the code that ran.
func (in *Instance) refill(mod api.Module, counter, charge int64) int64 {
	in.bind(mod)
	if in.killed.Load() {
		panic(errStopped)
	}
	in.detach() // a slice is spent: the question is not a quick one
	live := in.budget + counter
	if r, _ := in.reserve(); live < r {
		in.fuel.Set(uint64(counter + charge))
		in.dry = true
		panic(errOutOfFuel)
	}
	in.fuel.Set(uint64(counter))
	return in.slice(live)
}

// charge takes n units from the guest's counter for work the host is about
// to do on its behalf (a host call), before doing it. A bot that cannot pay
// is stopped here, with status fuel, and the work is never done (nor paid).
func (in *Instance) charge(n int64) {
	if in.killed.Load() {
		panic(errStopped)
	}
	if n <= 0 || in.fuel == nil {
		return
	}
	if n >= in.limits.Slice {
		in.detach() // the work paid for may take as long as a slice
	}
	c := in.counter() - n
	if in.budget+c < 0 {
		in.dry = true
		panic(errOutOfFuel)
	}
	in.fuel.Set(uint64(c))
}

// resume is called as a host call returns to the guest, whose code then
// runs on unchecked for up to meter.Reserve units: the tank must hold that
// much, and the counter is filled so that it does. A bot whose tank does
// not is stopped here (after the call's work, which it paid for).
func (in *Instance) resume() {
	if in.killed.Load() {
		panic(errStopped)
	}
	if in.fuel == nil {
		return
	}
	live := in.live()
	r, extra := in.reserve()
	if live < r {
		in.dry = true
		panic(errOutOfFuel)
	}
	if in.counter() < meter.Reserve || in.budget < extra {
		in.detach() // a slice is spent
		in.slice(live)
	}
}

// startTurn is called by the first stdin read after an observation is
// posted: this is the moment of delivery, when the tank is filled.
func (in *Instance) startTurn(observe func(left int64) []byte) {
	// Reading the thread's CPU clock is a system call (0.8-1.8 µs on the
	// project's machine at a load of 15, more than a trivial bot's whole
	// round trip), so it is made only when the guest is counting its CPU
	// time (not before its question's first slice boundary: handoff.go)
	// and the delivery comes late: a guest that read stdin within
	// turnCPUAfter of the question has had at most that much CPU time
	// before it, which the backstop may as well count.
	if in.cpu.Load() != nil && sinceEpoch()-in.askedAt.Load() > int64(turnCPUAfter) {
		if c, ok := in.guestCPU(); ok {
			in.turnCPU.Store(int64(c))
		}
	}
	left, owned := in.tank.left(in)
	if in.started {
		left = max(in.live(), 0) + in.held
	}
	if !owned {
		panic(errStopped) // a newer instance has the tank: this one is being stopped
	}
	if !in.started {
		in.startup = in.limits.StartAllowance - max(in.live(), 0)
	}
	in.started = true // what was left of the start-up allowance is gone
	in.prof.setPhase(phaseAnswer)
	left = min(satAdd(left, in.tank.PerTurn), in.tank.Cap)
	in.tank.set(in, left)
	answer := left
	if a := in.tank.Answer; a > 0 {
		answer = min(answer, a)
	}
	in.held = left - answer
	in.answerFrom = in.spentTotal()
	in.slice(answer)
	in.delivered = answer
	in.outstanding = true
	in.pending = append(observe(left), '\n')
}

// finish answers the outstanding observation: the guest pauses here, and
// whoever asked gets the reply.
func (in *Instance) finish(r protocol.Reply) {
	in.outstanding = false
	in.prof.setPhase(phaseBetween)
	r.Fuel = in.delivered - max(in.live(), 0)
	in.tank.set(in, max(in.live(), 0)+in.held)
	in.reply = r
	if in.answers != nil { // no guest to pause: stdoutWriter alone
		select {
		case in.answers <- r:
		default:
		}
		return
	}
	in.pause(evAnswer) // until the next question, or Stop
}

// end records why the guest ended.
func (in *Instance) end(err error) {
	in.prof.stop()
	r := protocol.Reply{Status: protocol.Crash}
	var exit *sys.ExitError
	switch {
	case in.dry && !in.started:
		r.Status = protocol.Fuel
		r.Detail = fmt.Sprintf("spent the start-up allowance of %d fuel before reading stdin", in.limits.StartAllowance)
	case in.dry:
		r.Status = protocol.Fuel
		r.Detail = "ran out of fuel"
	case in.killed.Load():
		r.Status = protocol.Timeout
		r.Detail = "stopped by the host"
	case err == nil:
		r.Detail = "returned from _start"
	case errors.As(err, &exit):
		r.Detail = fmt.Sprintf("exited with code %d", exit.ExitCode())
	default:
		r.Detail = "trap: " + firstLine(err.Error())
	}
	left := max(in.live(), 0)
	if in.started {
		in.tank.set(in, left+in.held)
	}
	if in.outstanding {
		in.outstanding = false
		r.Fuel = in.delivered - left
	}
	in.death = r
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Tank returns the tank the instance draws from. Its PerTurn and Cap never
// change; its Left is the instance's to update while it runs.
func (in *Instance) Tank() *Tank { return in.tank }

// maxClock is where the virtual clocks stop: the latest time whose wall
// clock in nanoseconds since 1970 still fits an int64. They saturate there
// rather than wrap, so they never go backwards.
const maxClock = 1<<63 - 1 - clockEpoch*1_000_000_000

func (in *Instance) nanotime() int64 { return min(satAdd(max(in.spentTotal(), 0), in.slept), maxClock) }

func (in *Instance) walltime() (int64, int32) {
	t := in.nanotime()
	return clockEpoch + t/1e9, int32(t % 1e9)
}

func (in *Instance) nanosleep(ns int64) {
	if ns > 0 {
		in.slept = satAdd(in.slept, ns)
	}
}

// satAdd adds two non-negative numbers, stopping at the largest int64.
func satAdd(a, b int64) int64 {
	if b > 0 && a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// stdinReader serves observations to the guest, blocking between turns.
type stdinReader struct{ in *Instance }

func (s stdinReader) Read(p []byte) (int, error) {
	in := s.in
	if in.fuel == nil {
		panic(errors.New("stdin read before the module was instantiated"))
	}
	if len(in.pending) == 0 {
		if in.outstanding {
			// The bot waits for input it will not get before it answers.
			if len(in.line) > 0 || in.overflow {
				in.finish(protocol.Reply{Status: protocol.Malformed, Detail: "answer line not ended by a newline before the bot read stdin again"})
			} else {
				in.finish(protocol.Reply{Status: protocol.Crash, Detail: "the bot read stdin again without answering (closed stdout?)"})
			}
		}
		// A line begun after the last answer (or in start-up) and not
		// ended before this read: it would be the start of the next
		// answer. Reading in the middle of a line is malformed, as for an
		// answer (docs/sandbox.md), and the next question is answered so.
		midLine := !in.outstanding && (len(in.line) > 0 || in.overflow)
		// The question under way, set before the guest was resumed. There
		// is none only when the guest was resumed to be stopped.
		observe := in.observe
		in.observe = nil
		if observe == nil || in.killed.Load() {
			return 0, io.EOF // the match is over: stdin is closed
		}
		in.startTurn(observe)
		if midLine {
			in.line, in.overflow = in.line[:0], false
			in.finish(protocol.Reply{Status: protocol.Malformed, Detail: "a line written after the previous answer was not ended by a newline before the bot read stdin again"})
		}
	}
	n := min(len(p), len(in.pending))
	in.charge(int64(n / meter.HostBytesPerUnit))
	copy(p, in.pending[:n])
	in.pending = in.pending[n:]
	return n, nil
}

// stdoutWriter splits the guest's stdout into lines; the first line completed
// after a delivery is the answer, any other line is dropped.
type stdoutWriter struct{ in *Instance }

func (s stdoutWriter) Write(p []byte) (int, error) {
	in := s.in
	if in.killed.Load() {
		// Stopped while in a host call: the call ends at this iovec
		// rather than after the whole list it paid for.
		return 0, errStopped
	}
	n := len(p)
	for len(p) > 0 {
		i := indexNewline(p)
		if i >= 0 && !in.outstanding {
			// No answer is awaited, so every line p completes is dropped:
			// go to the last newline in one search rather than one step
			// per line (a bot can write 256 MiB of newlines for 4M fuel,
			// and a step per line took a second of host time per such
			// write). What follows it has no newline.
			i += 1 + lastNewline(p[i+1:])
			in.line = in.line[:0]
			in.overflow = false
			if p = p[i+1:]; len(p) == 0 {
				break
			}
			i = -1
		}
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !in.overflow {
			if len(in.line)+len(chunk) > in.limits.MaxLine {
				in.overflow = true
				in.line = in.line[:0]
				if in.outstanding {
					in.finish(protocol.Reply{Status: protocol.Malformed, Detail: fmt.Sprintf("answer line longer than %d bytes", in.limits.MaxLine)})
				}
			} else {
				in.line = append(in.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !in.overflow && in.outstanding {
			in.finish(protocol.Reply{Status: protocol.OK, Line: append([]byte(nil), in.line...)})
		}
		in.line = in.line[:0]
		in.overflow = false
		p = p[i+1:]
	}
	return n, nil
}

// indexNewline finds the line's end with the library's vectorized search:
// a bot may write hundreds of megabytes for little fuel per byte
// (meter.HostBytesPerUnit), so the host's scan must cost far less than a
// plain instruction per byte.
func indexNewline(p []byte) int { return bytes.IndexByte(p, '\n') }

// lastNewline is bytes.LastIndexByte(p, '\n'), which is a plain loop, done
// with the vectorized forward search: over blocks of 4 KiB from the end,
// then blocks of 64 bytes of the block that has a newline, then byte by
// byte over 64 bytes at most.
func lastNewline(p []byte) int {
	lo, hi := 0, len(p) // the last newline is in p[lo:hi], if anywhere
	for _, block := range [...]int{4 << 10, 64} {
		found := false
		for end := hi; end > lo && !found; {
			start := max(end-block, lo)
			if indexNewline(p[start:end]) >= 0 {
				lo, hi, found = start, end, true
			}
			end = start
		}
		if !found {
			return -1
		}
	}
	return lo + bytes.LastIndexByte(p[lo:hi], '\n')
}

// randReader is random_get: a deterministic byte stream from the seed,
// independent of how the guest splits its reads.
type randReader struct {
	src  *rng.Source
	word [8]byte
	left int
}

func (r *randReader) Read(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && r.left > 0 { // the rest of the last word
		p[0] = r.word[8-r.left]
		p, r.left = p[1:], r.left-1
	}
	for len(p) >= 8 { // whole words, the bulk of a large read
		binary.LittleEndian.PutUint64(p, r.src.Uint64())
		p = p[8:]
	}
	if len(p) > 0 {
		binary.LittleEndian.PutUint64(r.word[:], r.src.Uint64())
		r.left = 8
		for len(p) > 0 {
			p[0] = r.word[8-r.left]
			p, r.left = p[1:], r.left-1
		}
	}
	return n, nil
}

// instantiateHost provides the arena and arena_meter host modules. They are
// shared by every instance of the Runtime and find the calling instance in
// the context.
func instantiateHost(ctx context.Context, wz wazero.Runtime) (api.Module, error) {
	i64 := []api.ValueType{api.ValueTypeI64}
	_, err := wz.NewHostModuleBuilder(meter.ImportModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			in := ctx.Value(instanceKey{}).(*Instance)
			stack[0] = uint64(in.refill(mod, int64(stack[0]), int64(stack[1])))
		}), []api.ValueType{api.ValueTypeI64, api.ValueTypeI64}, i64).
		Export(meter.ImportName).
		Instantiate(ctx)
	if err != nil {
		return nil, err
	}
	return wz.NewHostModuleBuilder(hostModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			in := ctx.Value(instanceKey{}).(*Instance)
			in.bind(mod)
			in.prof.enterHost(hostModule + "." + hostFuelLeft)
			in.charge(meter.HostCallPrice)
			in.resume()
			in.prof.exit()
			// The tank, as the observation shows it: with a per-answer
			// bound, the part held back for later answers counts too.
			stack[0] = uint64(in.live() + in.held)
		}), nil, i64).
		Export(hostFuelLeft).
		Instantiate(ctx)
}

// MemoryPages is the size of the bot's linear memory in 64 KiB pages, as of
// its last call of the host (every answer is one).
func (in *Instance) MemoryPages() uint32 { return in.pages.Load() }

// StartupFuel is the fuel the instance spent from instantiation to its first
// stdin read, out of Limits.StartAllowance. Read it once the first Ask has
// returned; before that it is 0.
func (in *Instance) StartupFuel() int64 { return in.startup }
