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

// Every turn reaches the live subject once and in order, in batches under
// the match's lease, none over jobs.MaxLiveBytes (but for a turn bigger
// than that, alone) or jobs.MaxLiveTurns; turns added and not flushed leave
// on the timer; a turn the server would refuse (over jobs.MaxLiveBatch) is
// not sent.
func TestLiveBatch(t *testing.T) {
	nc := InProcessNATS(t)
	le := jobs.Lease{MatchID: 5, Worker: "w", ID: "abc", Sig: "s1g"}
	var mu sync.Mutex
	var got []jobs.LiveTurn
	msgs := 0
	sub, err := nc.Subscribe(jobs.LiveSubject(5), func(m *nats.Msg) {
		lease, turns, err := jobs.DecodeTurns(m.Data)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("batch: %v", err)
			return
		}
		if lease.ID != le.ID || lease.Sig != le.Sig || lease.MatchID != 5 {
			t.Errorf("batch under lease %+v, want %+v", lease, le)
		}
		if len(turns) > 1 && len(m.Data) > jobs.MaxLiveBytes+1<<10 {
			t.Errorf("batch of %d turns, %d bytes", len(turns), len(m.Data))
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
	pad := func(i int) int {
		switch {
		case i == 150:
			return jobs.MaxLiveBytes + 1000 // a big turn goes alone
		case i > 200:
			return 0 // many small turns: more than jobs.MaxLiveTurns
		}
		return i % 3 * 5000
	}
	turn := func(i int) []byte {
		return fmt.Appendf(nil, `{"turn":%d,"pad":%q}`, i, bytes.Repeat([]byte("x"), pad(i)))
	}

	b, err := newLiveBatch(nc, jobs.LiveSubject(5), le)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200 + 2*jobs.MaxLiveTurns
	for i := 1; i <= n; i++ {
		b.add(i, turn(i))
		if i == 1 && b.turns != 0 {
			t.Fatal("the first turn waits for a batch; it leaves at once")
		}
	}
	b.flush()
	// Over what the server takes: not sent, and the next turn still is.
	b.add(n+1, bytes.Repeat([]byte("x"), jobs.MaxLiveBatch))
	b.add(n+2, turn(n+2)) // left to the timer
	wait(n + 1)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n+1 {
		t.Fatalf("%d turns arrived, want %d", len(got), n+1)
	}
	for i, tu := range got {
		want := i + 1
		if i == n {
			want = n + 2
		}
		if tu.N != want || !bytes.Equal(tu.JSON, turn(want)) {
			t.Fatalf("turn %d arrived as number %d, %.40q", want, tu.N, tu.JSON)
		}
	}
	if msgs > 20 {
		t.Fatalf("%d messages for %d turns", msgs, n+1)
	}
}
