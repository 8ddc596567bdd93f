package worker

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/arenabots/arena/internal/jobs"
)

// A running match's turns go to its live subject in batches (jobs.AppendTurn),
// each under the match's lease (jobs.LiveHeader), which the server checks:
// the match's first turn leaves at once (it marks the match running, and an
// upload's page shows its first answers while the smoke match plays), then a
// batch leaves liveDelay after its first turn, or sooner before it would
// pass jobs.MaxLiveBytes or jobs.MaxLiveTurns, and the last one when the
// match ends. A viewer sees the board at most liveDelay late; a match of
// quick bots sends two messages instead of one per turn.
const liveDelay = 100 * time.Millisecond

type liveBatch struct {
	nc      *nats.Conn
	subject string
	header  []byte // jobs.LiveHeader: every batch starts with it

	mu    sync.Mutex
	buf   []byte
	turns int
	timer *time.Timer
	begun bool // the first turn has been sent
}

func newLiveBatch(nc *nats.Conn, subject string, le jobs.Lease) (*liveBatch, error) {
	header, err := jobs.LiveHeader(le)
	if err != nil {
		return nil, err
	}
	return &liveBatch{nc: nc, subject: subject, header: header}, nil
}

// add queues one turn's JSON.
func (b *liveBatch) add(n int, turn []byte) {
	if len(b.header)+2*binary.MaxVarintLen64+len(turn) > jobs.MaxLiveBatch {
		return // the server would refuse it (jobs.MaxLiveBatch)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.turns > 0 && (len(b.buf)+len(turn)+2*binary.MaxVarintLen64 > len(b.header)+jobs.MaxLiveBytes || b.turns == jobs.MaxLiveTurns) {
		b.flushLocked()
	}
	if b.turns == 0 {
		b.buf = append(b.buf[:0], b.header...)
		b.timer = time.AfterFunc(liveDelay, b.flush)
	}
	b.buf = jobs.AppendTurn(b.buf, n, turn)
	b.turns++
	if !b.begun {
		b.begun = true
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
	if b.turns == 0 {
		return
	}
	b.timer.Stop()
	b.nc.Publish(b.subject, b.buf) // the connection copies it
	b.buf, b.turns = b.buf[:0], 0
}
