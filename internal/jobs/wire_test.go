package jobs_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/arenabots/arena/internal/jobs"
)

func sampleResult() jobs.Result {
	return jobs.Result{MatchID: 42, Turns: 3, Elapsed: 0.25, Worker: "w\n1", Check: true, Original: "o",
		Replay: []byte("{\"a\":1}\n\x00\xff\nlast line\n"),
		Seats: []jobs.SeatResult{{Score: 3, Place: 1, Statuses: map[string]int{"ok": 3}, Fuel: 9, Answers: 3, Stderr: []byte("log\nline\n")},
			{Score: -1, Place: 2, Statuses: map[string]int{"crash": 1}}}}
}

func TestResultRoundTrip(t *testing.T) {
	for _, r := range []jobs.Result{sampleResult(), {MatchID: 7, Error: "failed:\nreason"}, {MatchID: 8}} {
		data, err := jobs.EncodeResult(r)
		if err != nil {
			t.Fatal(err)
		}
		// The replay travels as it is, not in base64.
		if len(r.Replay) > 0 && !bytes.HasSuffix(data, r.Replay) {
			t.Fatalf("replay not raw at the end: %q", data)
		}
		got, err := jobs.DecodeResult(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
	}
}

func TestDecodeResultOfOlderWorkers(t *testing.T) {
	r := sampleResult()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := jobs.DecodeResult(data)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("%v: %+v", err, got)
	}
}

func TestDecodeResultRefuses(t *testing.T) {
	for _, data := range []string{
		``,
		`{"match_id":1`,
		`{"match_id":1,"replay":"eA=="}` + "\nmore",
		"not json\nreplay",
		"[1]\n",
	} {
		if r, err := jobs.DecodeResult([]byte(data)); err == nil {
			t.Errorf("%q decoded as %+v", data, r)
		}
	}
}

func liveHeader(t testing.TB) []byte {
	h, err := jobs.LiveHeader(jobs.Lease{MatchID: 9, Worker: "w", ID: "1d", Modules: []string{"ab"}, Sig: "5e"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestTurnsRoundTrip(t *testing.T) {
	turns := [][]byte{[]byte(`{"turn":1}`), {}, bytes.Repeat([]byte("x"), 300), []byte(`{"turn":4}`)}
	head := liveHeader(t)
	buf := bytes.Clone(head)
	for i, tu := range turns {
		buf = jobs.AppendTurn(buf, i+1, tu)
	}
	le, got, err := jobs.DecodeTurns(buf)
	if err != nil {
		t.Fatal(err)
	}
	if le.MatchID != 9 || le.ID != "1d" || le.Sig != "5e" || len(le.Modules) != 1 {
		t.Fatalf("lease %+v", le)
	}
	if len(got) != len(turns) {
		t.Fatalf("%d turns, want %d", len(got), len(turns))
	}
	for i, g := range got {
		if g.N != i+1 || !bytes.Equal(g.JSON, turns[i]) {
			t.Fatalf("turn %d: %d %q", i, g.N, g.JSON)
		}
	}
	many := bytes.Clone(head)
	for i := 1; i <= jobs.MaxLiveTurns; i++ {
		many = jobs.AppendTurn(many, i, []byte("{}"))
	}
	if _, got, err := jobs.DecodeTurns(many); err != nil || len(got) != jobs.MaxLiveTurns {
		t.Fatalf("%d turns: %v", len(got), err)
	}
	big := jobs.AppendTurn(bytes.Clone(head), 1, bytes.Repeat([]byte("x"), jobs.MaxLiveBatch-len(head)-5))
	if _, got, err := jobs.DecodeTurns(big); err != nil || len(got) != 1 {
		t.Fatalf("a batch of %d bytes: %v", len(big), err)
	}
	// A line break would end the server-sent event that relays the turn.
	lf := jobs.AppendTurn(bytes.Clone(head), 1, []byte("{\"turn\":1,\n\"x\":2}"))
	cr := jobs.AppendTurn(bytes.Clone(head), 1, []byte("{\"turn\":1,\r\"x\":2}"))
	badLease := append([]byte{'L', 3}, "{x}"...)
	longLease := append([]byte{'L', 0x80, 0x80, 0x01}, bytes.Repeat([]byte(" "), 16<<10)...)
	for _, bad := range [][]byte{nil, []byte("x"), []byte("{"),
		[]byte(`{"turn":12,"seats":[]}`),                      // one turn without a lease, as workers before leases on live turns sent it
		jobs.AppendTurn([]byte{'T'}, 1, []byte(`{"turn":1}`)), // a batch without a lease, the same
		buf[:len(buf)-1], append(bytes.Clone(head), 1, 0x80), append(bytes.Clone(head), 1, 5, 'a'),
		append(bytes.Clone(head), 0x81, 0x00, 0), lf, cr, badLease, longLease, {'L', 5, '{', '}'},
		jobs.AppendTurn(many, jobs.MaxLiveTurns+1, []byte("{}")), // too many turns
		append(big, 0), // too long
	} {
		if le, got, err := jobs.DecodeTurns(bad); err == nil {
			t.Errorf("%.60q decoded as %+v %+v", bad, le, got)
		}
	}
}

func FuzzDecodeTurns(f *testing.F) {
	head := liveHeader(f)
	f.Add(jobs.AppendTurn(jobs.AppendTurn(bytes.Clone(head), 1, []byte(`{"turn":1}`)), 2, []byte(`{}`)))
	f.Add([]byte(`{"turn":3}`))
	f.Add(append(bytes.Clone(head), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))
	f.Add([]byte{'L', 2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		le, turns, err := jobs.DecodeTurns(data)
		if err != nil {
			return
		}
		if len(turns) > jobs.MaxLiveTurns || len(data) > jobs.MaxLiveBatch {
			t.Fatalf("%d turns, %d bytes decoded", len(turns), len(data))
		}
		// The turns of a batch that decodes encode back to the same bytes
		// after its lease.
		tail := data[len(data)-sumLen(turns):]
		var buf []byte
		for _, tu := range turns {
			if tu.N < 0 || bytes.ContainsAny(tu.JSON, "\r\n") {
				t.Fatalf("turn %d: %q", tu.N, tu.JSON)
			}
			buf = jobs.AppendTurn(buf, tu.N, tu.JSON)
		}
		if !bytes.Equal(buf, tail) || le == nil {
			t.Fatalf("re-encoded %q as %q (lease %+v)", tail, buf, le)
		}
	})
}

// sumLen is the bytes the turns take in a batch.
func sumLen(turns []jobs.LiveTurn) int {
	n := 0
	for _, tu := range turns {
		n += len(jobs.AppendTurn(nil, tu.N, tu.JSON))
	}
	return n
}

func FuzzDecodeResult(f *testing.F) {
	data, _ := jobs.EncodeResult(sampleResult())
	f.Add(data)
	old, _ := json.Marshal(sampleResult())
	f.Add(old)
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := jobs.DecodeResult(data)
		if err != nil {
			return
		}
		// Whatever decodes survives a round trip.
		again, err := jobs.EncodeResult(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := jobs.DecodeResult(again)
		if err != nil {
			t.Fatalf("%q (from %q): %v", again, data, err)
		}
		twice, err := jobs.EncodeResult(back)
		if err != nil || !bytes.Equal(twice, again) || back.MatchID != r.MatchID || !bytes.Equal(back.Replay, r.Replay) {
			t.Fatalf("round trip of %q: %q then %q", data, again, twice)
		}
	})
}
