package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
)

func sample() *Replay {
	return &Replay{
		Format: Format, Version: Version, Game: "g", Params: game.Params{"b": "2", "a": "1"}, Seed: 3,
		Bots:        []bot.Identity{{Spec: "builtin:x"}, {Spec: "wasm:y.wasm", SHA256: "ab"}},
		InitialHash: HashString(1),
		Turns: []Turn{
			{Turn: 1, Seats: []Seat{{Seat: 0, Status: game.OK, Answer: `{"m":1}`, Action: json.RawMessage(`{"m":1}`), Fuel: 9}}, Hash: HashString(2)},
			{Turn: 2, Seats: []Seat{{Seat: 1, Status: game.Malformed, Answer: "<html>", Reason: "not JSON", Action: json.RawMessage(`{"m":0}`)}}, Hash: HashString(3)},
			{Turn: 3, Seats: []Seat{{Seat: 0, Status: game.Malformed, AnswerBase64: "/w==", Action: json.RawMessage(`{"m":0}`)}}, Hash: HashString(4)},
		},
		Logs:   []Log{NewLog(0, []byte("hello\n")), NewLog(1, []byte{0xff, '\n'})},
		Result: Result{Turns: 3, Scores: []int64{1, 0}, Placement: []int{0, 1}, Statuses: []map[game.Status]int{{game.OK: 1}, {game.Malformed: 1}}},
	}
}

func TestMarshalRoundTripsAndIsStable(t *testing.T) {
	r := sample()
	a, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(a) {
		t.Fatalf("not JSON:\n%s", a)
	}
	// One turn per line: header, "turns":[, three turns, ], result, "logs":[, two logs, ].
	if lines := strings.Count(string(a), "\n"); lines != 11 {
		t.Fatalf("%d lines:\n%s", lines, a)
	}
	back, err := Parse(a)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := back.Marshal()
	if !bytes.Equal(a, b) {
		t.Fatalf("re-encoding changed the bytes:\n%s\n%s", a, b)
	}
	if !strings.Contains(string(a), `"answer":"<html>"`) {
		t.Fatal("HTML was escaped; replays keep answers as sent")
	}
}

func TestParseRefusesOtherFormats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"format":"arena-replay","version":3}`, "version 3 is not supported"},
		{`{"format":"pgn"}`, "format is"},
		{`[1,2]`, "not a replay"},
	} {
		if _, err := Parse([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s): %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	good, _ := sample().Marshal()
	f.Add(good)
	f.Add([]byte(`{"format":"arena-replay","version":1,"turns":[{"seats":[{"action":null}]}]}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`{"format":"arena-replay","version":1,"turns":[{"seats":[{"failed":true,"answer_sha256":"00"}]}],"logs":[]}`))
	f.Add([]byte(`{"format":"arena-replay","version":2,"bots":[{"spec":"builtin:x","cost_model":2}],"extra":1} {}`))
	f.Add([]byte(`{"format":"arena-replay","version":2,"bots":[{}],"logs":[{"seat":0},{"seat":0,"base64":"/w=="}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		out, err := r.Marshal()
		if err != nil {
			t.Fatalf("a parsed replay does not encode: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("an encoded replay does not parse: %v\n%s", err, out)
		}
		out2, _ := again.Marshal()
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}

// A bot's display name is kept, and bounded.
func TestBotNamesAreKeptAndBounded(t *testing.T) {
	r := sample()
	r.Bots[1].Name = "@eve/<b>x</b>"
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data)
	if err != nil || back.Bots[1].Name != "@eve/<b>x</b>" {
		t.Fatalf("parsed back: %v, %+v", err, back)
	}
	r.Bots[1].Name = strings.Repeat("n", maxBotName+1)
	data, _ = r.Marshal()
	if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), "name is") {
		t.Fatalf("a %d-byte name: %v", maxBotName+1, err)
	}
}
