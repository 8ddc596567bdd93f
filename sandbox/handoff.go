package sandbox

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"time"

	"github.com/arenabots/arena/internal/nice"
	"github.com/arenabots/arena/protocol"
)

// The hand-off between the caller and the guest.
//
// The guest goroutine is a coroutine (iter.Pull): it runs only when it is
// resumed, and pauses at its answer (finish), so that a question is one
// switch to the guest and one back, on the asking goroutine's thread,
// without the scheduler. (The guest once kept a thread of its own, locked
// to it so that the thread's CPU time was the guest's; every hand-off then
// parked one thread and woke another, and a trivial bot's round trip took
// 31-49 µs, three quarters of it in futex.)
//
// A question that is not quick is moved off the asking goroutine: at its
// first slice boundary (a slice of fuel spent, or a host call priced at a
// slice or more) the guest pauses once more (detach), Ask resumes it on a
// goroutine of its own and waits for it with the backstop, and the guest
// locks itself to its thread until its next pause, counting that thread's
// CPU time (lockThread). What ran before the boundary is at most about a
// slice of fuel, which the prices keep to milliseconds.
//
// A context asking for lowered threads (internal/nice) gets the threaded
// hand-off instead: the guest is resumed on a thread of its own, lowered
// and locked for good (threadDriver), and every question waits as a
// detached one does. Its asking goroutine may be locked to a thread
// itself; in the coroutine hand-off it must not be (runtime/coro.go
// forbids switching to a coroutine from a locked goroutine), so a caller
// that locks its goroutine (nice.Run) must pass a context from nice.With.

// An event is why the guest paused.
type event uint8

const (
	evAnswer event = iota + 1 // it finished an answer (in.reply)
	evDetach                  // it is past its first slice boundary of the question
)

// A result is the outcome of one resumption made by a goroutine of the
// hand-off: the event the guest paused at, or ok false when it ended.
type result struct {
	ev event
	ok bool
}

// begin makes the guest goroutine, which runs run when first resumed.
func (in *Instance) begin(lower int, run func()) {
	seq := func(yield func(event) bool) {
		in.yield = yield
		run()
	}
	if lower > 0 {
		in.threaded = true
		in.requests = make(chan struct{}, 1)
		go in.threadDriver(lower, seq)
		return
	}
	in.next, _ = iter.Pull(seq)
}

// threadDriver resumes the guest on a thread of its own, lowered by lower
// nice levels, for every request, and keeps it to itself: the thread ends
// with it rather than going back to the runtime's pool (internal/nice).
func (in *Instance) threadDriver(lower int, seq iter.Seq[event]) {
	runtime.LockOSThread()
	if !nice.Lower(lower) {
		defer runtime.UnlockOSThread()
	}
	if id, ok := threadClock(); ok {
		if base, ok := threadCPUTime(id); ok {
			in.cpu.Store(&guestClock{id, base})
		}
	}
	// The coroutine is made here, on the locked thread, so that the guest
	// runs on it (and in it).
	next, _ := iter.Pull(seq)
	for {
		select {
		case <-in.requests:
			ev, ok := next()
			in.drive.Unlock()
			in.send(result{ev, ok})
			if !ok {
				return
			}
		case <-in.killCh:
			for {
				if _, ok := next(); !ok {
					return
				}
			}
		}
	}
}

// send passes a resumption's outcome to the Ask waiting for it. There is
// at most one: a question the caller gave up on stopped the instance, and
// no Ask waits after that, so an outcome that does not fit is dropped.
func (in *Instance) send(r result) {
	select {
	case in.results <- r:
	default:
	}
}

// pause hands control back to whoever resumed the guest, reporting ev, and
// returns when the guest is resumed. Called on the guest goroutine.
func (in *Instance) pause(ev event) {
	in.unlockThread()
	in.detached = false
	if !in.yield(ev) {
		panic(errStopped) // cannot happen: the coroutine is never stopped
	}
}

// detach moves a question that is not quick off the asking goroutine (see
// above), and from then on counts the guest's CPU time on its thread.
// Called on the guest goroutine at slice boundaries.
func (in *Instance) detach() {
	if in.threaded || in.detached || in.yield == nil {
		return
	}
	in.pause(evDetach)
	in.detached = true
	in.lockThread()
}

// A guestClock reads the CPU time of the thread the guest is locked to:
// the guest's CPU time is that thread's clock less base.
type guestClock struct {
	id   int32
	base time.Duration
}

// haveThreadClock tells whether a thread's CPU time can be read here.
var _, haveThreadClock = threadClock()

// lockThread locks the guest to its thread and starts counting that
// thread's CPU time as the guest's.
func (in *Instance) lockThread() {
	runtime.LockOSThread()
	in.locked = true
	if id, ok := threadClock(); ok {
		if t, ok := threadCPUTime(id); ok {
			in.cpu.Store(&guestClock{id, t - time.Duration(in.cpuDone.Load())})
		}
	}
}

// unlockThread ends lockThread's count and lock, if any.
func (in *Instance) unlockThread() {
	if !in.locked {
		return
	}
	if c := in.cpu.Load(); c != nil {
		if t, ok := threadCPUTime(c.id); ok {
			in.cpuDone.Store(int64(t - c.base))
		}
		in.cpu.Store(nil)
	}
	runtime.UnlockOSThread()
	in.locked = false
}

// guestCPU is the CPU time the guest has had while it counted it (lockThread,
// or the threaded hand-off's whole life), or false when it cannot be known
// (not on Linux).
func (in *Instance) guestCPU() (time.Duration, bool) {
	if c := in.cpu.Load(); c != nil {
		t, ok := threadCPUTime(c.id)
		return t - c.base, ok
	}
	return time.Duration(in.cpuDone.Load()), haveThreadClock
}

// Ask delivers one observation and waits for the answer line. observe makes
// the observation line (without its newline) given the fuel in the tank (of
// which the answer may spend at most Tank.Answer, when set); it is called on
// the guest goroutine when the bot reads stdin.
// The reply's Status is OK, Fuel, Timeout, Crash or Malformed.
//
// Ask must not be called while another Ask of the instance is under way,
// nor, unless the instance was started with a context from nice.With, from
// a goroutine locked to its thread.
func (in *Instance) Ask(ctx context.Context, observe func(left int64) []byte) protocol.Reply {
	select {
	case <-in.done:
		return protocol.Reply{Status: in.death.Status, Detail: in.death.Detail}
	default:
	}
	if in.killed.Load() {
		return protocol.Reply{Status: protocol.Timeout, Detail: "stopped by the host"}
	}
	if ctx.Err() != nil {
		in.kill()
		return protocol.Reply{Status: protocol.Timeout, Detail: fmt.Sprintf("cancelled: %v", context.Cause(ctx))}
	}
	if !in.drive.TryLock() {
		return protocol.Reply{Status: protocol.Crash, Detail: "sandbox: Ask while the instance answers another question"}
	}
	in.observe = observe
	in.turnCPU.Store(-1)
	cpu0, _ := in.guestCPU() // no system call, unless threaded
	if in.threaded {
		in.askedAt.Store(sinceEpoch())
		in.requests <- struct{}{}
		return in.wait(ctx, cpu0)
	}
	ev, ok := in.next()
	if ok && ev == evDetach {
		// The wall clock counts from here, at most about a slice of
		// fuel after the question.
		in.askedAt.Store(sinceEpoch())
		go func() {
			ev, ok := in.next()
			in.drive.Unlock()
			in.send(result{ev, ok})
		}()
		return in.wait(ctx, cpu0)
	}
	in.drive.Unlock()
	return in.outcome(ev, ok)
}

// outcome is the reply to the question from the guest's pause or end.
func (in *Instance) outcome(ev event, ok bool) protocol.Reply {
	if ok && ev == evAnswer {
		return in.reply
	}
	return in.death
}

// wait waits for a question resumed on another goroutine, with the backstop:
// the guest's CPU time since the question (cpu0), where it can be read,
// and the wall-clock time in any case. The CPU time cannot grow faster
// than the wall clock (the guest is one thread), so the timer is set to the
// earliest moment either limit can be reached. Once the observation is
// delivered the CPU time counts from the delivery: what the guest did
// before it (its start-up, or the work after its previous answer, up to the
// rest of that answer's fuel) is one allotment of fuel, and the answer is
// another, each priced to take well under half the limit (docs/fuel.md).
// Counted together, a chess clock's bot spending both on the dearest work
// reached the limit on a busy machine (TestChessClockWindow).
//
// The default CPU limit is widened on a machine whose memory is slower than
// the calibration's (memoryscale.go): the first answer of the process to
// reach the unwidened limit starts the measurement and may run on to the
// widest limit while it is under way.
func (in *Instance) wait(ctx context.Context, cpu0 time.Duration) protocol.Reply {
	cpuLimit, wallLimit := in.limits.CPU, in.limits.Wall
	if s, ok := memoryProbe.known(); ok && in.widen {
		cpuLimit = scaled(in.limits.CPU, s)
	}
	var measuring <-chan struct{} // the probe's, while it runs for this answer
	timer := time.NewTimer(min(cpuLimit, wallLimit))
	defer timer.Stop()
	for {
		select {
		case <-measuring:
			measuring = nil
			s, _ := memoryProbe.known()
			cpuLimit = scaled(in.limits.CPU, s)
			timer.Reset(0)
		case r := <-in.results:
			return in.outcome(r.ev, r.ok)
		case <-in.done:
			select {
			case r := <-in.results:
				return in.outcome(r.ev, r.ok)
			default:
				return in.death
			}
		case <-timer.C:
			wall := time.Duration(sinceEpoch() - in.askedAt.Load())
			used := wall
			if cpu, ok := in.guestCPU(); ok {
				base := cpu0
				if d := in.turnCPU.Load(); d >= 0 {
					base = time.Duration(d)
				}
				used = cpu - base
			}
			if used >= cpuLimit && in.widen && measuring == nil {
				if _, ok := memoryProbe.known(); !ok {
					measuring = memoryProbe.start()
					cpuLimit = scaled(in.limits.CPU, MaxBackstopScale)
				}
			}
			if used >= cpuLimit || wall >= wallLimit {
				in.kill()
				return protocol.Reply{Status: protocol.Timeout, Detail: fmt.Sprintf("no answer within the backstop of %v of CPU time (%v of wall-clock time)", cpuLimit, wallLimit)}
			}
			timer.Reset(max(min(cpuLimit-used, wallLimit-wall), time.Millisecond))
		case <-ctx.Done():
			in.kill()
			return protocol.Reply{Status: protocol.Timeout, Detail: fmt.Sprintf("cancelled: %v", context.Cause(ctx))}
		}
	}
}

// turnCPUAfter: a delivery later than this after its question has the
// guest's CPU time read, for the backstop to count from (startTurn).
const turnCPUAfter = 10 * time.Millisecond

// epoch is a fixed moment of the process's monotonic clock.
var epoch = time.Now()

// sinceEpoch is the monotonic time since epoch, in ns.
func sinceEpoch() int64 { return int64(time.Since(epoch)) }

// Stop ends the instance and waits until its memory is freed. A paused
// guest is resumed to end: at its stdin read it reads end of file, and
// computing it is aborted at its next slice boundary. Stop is safe to call
// more than once.
func (in *Instance) Stop() {
	in.kill()
	if !in.threaded {
		in.unwind.Do(func() {
			go func() {
				// After whoever resumed the guest last is done with it.
				in.drive.Lock()
				defer in.drive.Unlock()
				for {
					if _, ok := in.next(); !ok {
						return
					}
				}
			}()
		})
	}
	select {
	case <-in.done:
	case <-time.After(stopGrace):
		// The guest did not reach a fuel check: a bug in the meter. Leak it
		// rather than hang the match; it can no longer touch the tank.
	}
	in.tank.release(in)
}

func (in *Instance) kill() {
	in.killOnce.Do(func() {
		in.killed.Store(true)
		close(in.killCh)
	})
}

// scaled is limit widened by the factor s.
func scaled(limit time.Duration, s float64) time.Duration {
	return time.Duration(float64(limit) * s)
}
