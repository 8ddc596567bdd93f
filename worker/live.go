package worker

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/arenabots/arena/internal/jobs"
)

// A running match's turns go to its live subject in batches (jobs.AppendTurn):
// a batch leaves liveDelay after its first turn, or sooner once it holds
// liveBatchBytes, and the last one when the match ends. A viewer sees the
// board at most liveDelay late; a match of quick bots sends a message or
// two instead of one per turn.
const (
	liveDelay      = 100 * time.Millisecond
	liveBatchBytes = 256 << 10
)

type liveBatch struct {
	nc      *nats.Conn
	subject string
	mu      sync.Mutex
	buf     []byte
	timer   *time.Timer
}

func newLiveBatch(nc *nats.Conn, subject string) *liveBatch {
	return &liveBatch{nc: nc, subject: subject}
}

// add queues one turn's JSON.
func (b *liveBatch) add(n int, turn []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) == 0 {
		b.timer = time.AfterFunc(liveDelay, b.flush)
	}
	b.buf = jobs.AppendTurn(b.buf, n, turn)
	if len(b.buf) >= liveBatchBytes {
		b.flushLocked()
	}
}

// flush sends the turns queued, if any.
func (b *liveBatch) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

func (b *liveBatch) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	b.timer.Stop()
	b.nc.Publish(b.subject, b.buf) // the connection copies it
	b.buf = b.buf[:0]
}
