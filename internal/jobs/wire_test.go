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

func TestTurnsRoundTrip(t *testing.T) {
	turns := [][]byte{[]byte(`{"turn":1}`), {}, bytes.Repeat([]byte("x"), 300), []byte(`{"turn":4}`)}
	var buf []byte
	for i, tu := range turns {
		buf = jobs.AppendTurn(buf, i+1, tu)
	}
	got, err := jobs.DecodeTurns(buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(turns) {
		t.Fatalf("%d turns, want %d", len(got), len(turns))
	}
	for i, g := range got {
		if g.N != i+1 || !bytes.Equal(g.JSON, turns[i]) {
			t.Fatalf("turn %d: %d %q", i, g.N, g.JSON)
		}
	}
	// One turn's JSON, as older workers publish it.
	one, err := jobs.DecodeTurns([]byte(`{"turn":12,"seats":[]}`))
	if err != nil || len(one) != 1 || one[0].N != 12 {
		t.Fatalf("single turn: %v %+v", err, one)
	}
	// A line break would end the server-sent event that relays the turn.
	lf := jobs.AppendTurn(nil, 1, []byte("{\"turn\":1,\n\"x\":2}"))
	cr := jobs.AppendTurn(nil, 1, []byte("{\"turn\":1,\r\"x\":2}"))
	for _, bad := range [][]byte{nil, []byte("x"), []byte("{"), buf[:len(buf)-1], append([]byte{'T', 1}, 0x80), {'T', 1, 5, 'a'},
		{'T', 0x81, 0x00, 0}, lf, cr, []byte("{\"turn\":1,\n\"x\":2}")} {
		if got, err := jobs.DecodeTurns(bad); err == nil {
			t.Errorf("%q decoded as %+v", bad, got)
		}
	}
}

func FuzzDecodeTurns(f *testing.F) {
	f.Add(jobs.AppendTurn(jobs.AppendTurn(nil, 1, []byte(`{"turn":1}`)), 2, []byte(`{}`)))
	f.Add([]byte(`{"turn":3}`))
	f.Add([]byte{'T', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		turns, err := jobs.DecodeTurns(data)
		if err != nil || len(data) == 0 || data[0] != 'T' {
			return
		}
		// A batch that decodes encodes back to the same bytes.
		var buf []byte
		for _, tu := range turns {
			if tu.N < 0 {
				t.Fatalf("negative turn number %d", tu.N)
			}
			buf = jobs.AppendTurn(buf, tu.N, tu.JSON)
		}
		if len(turns) == 0 {
			buf = []byte{'T'}
		}
		if !bytes.Equal(buf, data) {
			t.Fatalf("re-encoded %q as %q", data, buf)
		}
	})
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
