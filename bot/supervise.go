package bot

import (
	"context"
	"fmt"
	"sync"

	"github.com/arenabots/arena/game"
)

// A Process is one running instance of a bot program (a child process, a wasm
// instance). It is replaced by a fresh one when it fails.
type Process interface {
	// Ask sends one observation line and waits for one answer line.
	Ask(ctx context.Context, req Request) Reply
	// Stop ends the instance and frees everything it holds. It is safe to call
	// more than once.
	Stop()
}

// Starter starts a fresh instance of a bot program.
type Starter func(ctx context.Context) (Process, error)

// Supervised is a Bot backed by a program. It applies the protocol's rule: an
// answer that fails (fuel, timeout, crash, or a line too long to be in sync)
// stops the instance, a fresh one answers the next turn, and the failure after
// MaxRestarts restarts retires the bot for the rest of the match.
type Supervised struct {
	start    Starter
	log      *Log
	cur      Process
	failures int
}

// NewSupervised makes a Bot that starts instances with start on demand. log is
// where the instances write their stderr; Close returns what it kept.
func NewSupervised(start Starter, log *Log) *Supervised {
	return &Supervised{start: start, log: log}
}

// Act answers one request, starting an instance first if none runs.
func (s *Supervised) Act(ctx context.Context, req Request) Reply {
	if s.failures > MaxRestarts {
		return Reply{Status: game.Retired, Detail: "retired after too many failures"}
	}
	if s.cur == nil {
		p, err := s.start(ctx)
		if err != nil {
			s.failures++
			return Reply{Status: game.Crash, Detail: fmt.Sprintf("start: %v", err)}
		}
		s.cur = p
	}
	r := s.cur.Ask(ctx, req)
	if r.Status == game.OK {
		return r
	}
	// The instance is no longer in a known state: replace it next turn.
	s.cur.Stop()
	s.cur = nil
	s.failures++
	return r
}

// Close stops the running instance and returns the kept log.
func (s *Supervised) Close() []byte {
	if s.cur != nil {
		s.cur.Stop()
		s.cur = nil
	}
	if s.log == nil {
		return nil
	}
	return s.log.Bytes()
}

// Log keeps the first MaxLog bytes written to it and drops the rest, so a bot
// that floods its stderr costs the platform nothing. It is safe for
// concurrent use, and every instance of one bot in one match shares one Log.
type Log struct {
	mu      sync.Mutex
	buf     []byte
	dropped int64
}

// Write keeps what fits and reports everything as written, so a writer
// (such as os/exec's copying goroutine) never blocks on a full log.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	room := MaxLog - len(l.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		l.buf = append(l.buf, p[:room]...)
	}
	l.dropped += int64(len(p) - room)
	return len(p), nil
}

// Bytes returns a copy of what was kept.
func (l *Log) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.buf...)
}

// Dropped counts the bytes that did not fit.
func (l *Log) Dropped() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}
