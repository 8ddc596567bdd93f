package worker

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/arenabots/arena/internal/jobs"
)

// Every turn reaches the live subject once and in order, in batches no
// bigger than liveBatchBytes and a turn; turns added and not flushed leave
// on the timer.
func TestLiveBatch(t *testing.T) {
	nc := InProcessNATS(t)
	var mu sync.Mutex
	var got []jobs.LiveTurn
	msgs := 0
	sub, err := nc.Subscribe(jobs.LiveSubject(5), func(m *nats.Msg) {
		turns, err := jobs.DecodeTurns(m.Data)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("batch: %v", err)
		}
		if len(m.Data) > liveBatchBytes+20<<10 {
			t.Errorf("batch of %d bytes", len(m.Data))
		}
		got = append(got, turns...)
		msgs++
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			have := len(got)
			mu.Unlock()
			if have >= n || time.Now().After(deadline) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	turn := func(i int) []byte {
		return fmt.Appendf(nil, `{"turn":%d,"pad":%q}`, i, bytes.Repeat([]byte("x"), i%3*5000))
	}

	b := newLiveBatch(nc, jobs.LiveSubject(5))
	const n = 200 // about 330 KB: more than one batch
	for i := 1; i <= n; i++ {
		b.add(i, turn(i))
	}
	b.flush()
	b.add(n+1, turn(n+1)) // left to the timer
	wait(n + 1)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n+1 {
		t.Fatalf("%d turns arrived, want %d", len(got), n+1)
	}
	for i, tu := range got {
		if tu.N != i+1 || !bytes.Equal(tu.JSON, turn(i+1)) {
			t.Fatalf("turn %d arrived as number %d, %.40q", i+1, tu.N, tu.JSON)
		}
	}
	if msgs > n {
		t.Fatalf("%d messages for %d turns", msgs, n+1)
	}
}
