package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/jobs"
)

func turnJSON(n int) []byte { return []byte(fmt.Sprintf(`{"turn":%d,"seats":[]}`, n)) }

// turn hands the hub a batch of one turn.
func (h *liveHub) turn(id int64, data []byte) {
	var n int
	fmt.Sscanf(string(data), `{"turn":%d`, &n)
	h.batch(id, []jobs.LiveTurn{{N: n, JSON: data}})
}

// A live view gets the turns so far, then each later one, with none lost or
// repeated between the two; a match that starts again (its worker died)
// starts its history again; a view of a match whose start this server missed
// gets no history rather than a wrong one; history is bounded.
func TestLiveHub(t *testing.T) {
	var started []int64
	h := newLiveHub(func(id int64) { started = append(started, id) })
	for i := 1; i <= 3; i++ {
		h.turn(7, turnJSON(i))
	}
	if len(started) != 1 || started[0] != 7 {
		t.Fatalf("started %v after three turns of match 7, want [7]", started)
	}
	var got []string
	past, stop := h.subscribe(7, func(batch [][]byte) {
		for _, b := range batch {
			got = append(got, string(b))
		}
	})
	if len(past) != 3 || string(past[2]) != string(turnJSON(3)) {
		t.Fatalf("past %q", past)
	}
	h.turn(7, turnJSON(4))
	h.turn(8, turnJSON(1)) // another match
	if len(got) != 1 || got[0] != string(turnJSON(4)) {
		t.Fatalf("live turns %q", got)
	}
	stop()
	h.turn(7, turnJSON(5))
	if len(got) != 1 {
		t.Fatal("a stopped view still gets turns")
	}
	// A batch reaches a view in one call, its turns in order, and is kept
	// as copies: the history holds no message's bytes.
	calls := 0
	_, stop = h.subscribe(7, func(batch [][]byte) {
		calls++
		for _, b := range batch {
			got = append(got, string(b))
		}
	})
	msg := append(turnJSON(6), turnJSON(7)...)
	six, seven := msg[:len(turnJSON(6))], msg[len(turnJSON(6)):]
	h.batch(7, []jobs.LiveTurn{{N: 6, JSON: six}, {N: 7, JSON: seven}})
	stop()
	if calls != 1 || len(got) != 3 || got[1] != string(turnJSON(6)) || got[2] != string(turnJSON(7)) {
		t.Fatalf("a batch of two turns: %d calls, %q", calls, got)
	}
	msg[0] = 'X'
	if past, stop := h.subscribe(7, func([][]byte) {}); len(past) != 7 || string(past[5]) != string(turnJSON(6)) {
		t.Fatalf("history after the batch: %q", past)
	} else {
		stop()
	}

	h.turn(7, turnJSON(1)) // the match runs again from the start
	if past, stop := h.subscribe(7, func([][]byte) {}); len(past) != 1 {
		t.Fatalf("after a restart: %d turns", len(past))
	} else {
		stop()
	}

	h.turn(9, turnJSON(12)) // this server joined mid-match
	h.turn(9, turnJSON(13))
	if past, stop := h.subscribe(9, func([][]byte) {}); past != nil {
		t.Fatalf("a match seen from turn 12 has a history of %d turns", len(past))
	} else {
		stop()
	}

	h.end(7)
	if _, ok := h.matches[7]; ok {
		t.Fatal("an ended match is still kept")
	}

	big := []byte(`{"turn":1,"pad":"` + strings.Repeat("x", liveMatchBytes) + `"}`)
	h.turn(10, big)
	if past, stop := h.subscribe(10, func([][]byte) {}); past != nil || h.bytes > liveTotalBytes {
		t.Fatalf("a history over the bound: %d turns, %d bytes kept", len(past), h.bytes)
	} else {
		stop()
	}
	for id := int64(100); id < 100+2*liveMatches; id++ {
		h.turn(id, turnJSON(1))
	}
	if len(h.matches) > liveMatches {
		t.Fatalf("%d matches kept, at most %d", len(h.matches), liveMatches)
	}
}
