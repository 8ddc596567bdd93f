package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// greedyBytes is an honest replay of two built-in bots: nothing in it but
// answers kept whole, so relabelled as version 1 it holds no field that
// only version 2 writes.
var greedyBytes = sync.OnceValues(func() ([]byte, error) {
	open := func(_ context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
		b, err := bot.OpenBuiltin("greedy", m)
		return b, bot.Identity{Spec: "builtin:greedy"}, err
	}
	r, err := match.Runner{}.Play(context.Background(), dotsandboxes.Game{}, game.Config{Seed: 11, Players: 2}, open)
	if err != nil {
		return nil, err
	}
	return r.Marshal()
})

// doc is a replay as generic JSON, so that a test can add fields the Go
// types do not have, as a hand edit can.
type doc = map[string]any

func decodeDoc(t *testing.T, data []byte) doc {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var d doc
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	// Actions are compared as the bytes the game writes: keep them as
	// they are rather than with their keys sorted.
	r, err := replay.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, turn := range d["turns"].([]any) {
		for j, s := range turn.(doc)["seats"].([]any) {
			if a := r.Turns[i].Seats[j].Action; a != nil {
				s.(doc)["action"] = a
			}
		}
	}
	return d
}

// seatOf returns turn's (1-based) entry for seat.
func seatOf(t *testing.T, d doc, turn, seat int) doc {
	t.Helper()
	for _, s := range d["turns"].([]any)[turn-1].(doc)["seats"].([]any) {
		if n, _ := s.(doc)["seat"].(json.Number).Int64(); int(n) == seat {
			return s.(doc)
		}
	}
	t.Fatalf("turn %d has no seat %d", turn, seat)
	return nil
}

// firstOKTurn is the first turn in which seat's answer was judged ok.
func firstOKTurn(t *testing.T, d doc, seat int) int {
	t.Helper()
	for i := range d["turns"].([]any) {
		if s := seatOf(t, d, i+1, seat); s["status"] == "ok" && s["failed"] == nil {
			return i + 1
		}
	}
	t.Fatalf("seat %d has no ok answer", seat)
	return 0
}

// okToIllegal changes seat's status in turn from ok to illegal and the
// result's counts with it, as a careful cheater would.
func okToIllegal(t *testing.T, d doc, turn, seat int) {
	seatOf(t, d, turn, seat)["status"] = "illegal"
	counts := d["result"].(doc)["statuses"].([]any)[seat].(doc)
	n := func(k string) int64 {
		v, _ := counts[k].(json.Number)
		i, _ := v.Int64() // absent: 0
		return i
	}
	counts["ok"], counts["illegal"] = n("ok")-1, n("illegal")+1
}

// TestVerifyRefusesDowngradesAndSmuggling: each hand edit that would switch
// off a check (a lower version, a field the format does not have, a cut
// answer where the recorder keeps it whole, a cost model where nothing is
// metered, a seat or log that is not there) is refused, by Parse or by
// Verify, with a message naming what was changed.
func TestVerifyRefusesDowngradesAndSmuggling(t *testing.T) {
	v1, err := os.ReadFile("testdata/v1-dots-and-boxes.replay.json")
	if err != nil {
		t.Fatal(err)
	}
	hostile := func(t *testing.T) []byte {
		data, err := hostileBytes()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	greedy := func(t *testing.T) []byte {
		data, err := greedyBytes()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, tc := range []struct {
		name string
		from func(t *testing.T) []byte
		edit func(t *testing.T, d doc)
		want string
	}{
		// Relabelling as version 1.
		{"version 2 with exact answers relabelled 1", hostile, func(t *testing.T, d doc) { d["version"] = 1 },
			"version 1 replay has"},
		{"version 2 of built-ins relabelled 1, a status changed", greedy, func(t *testing.T, d doc) {
			okToIllegal(t, d, firstOKTurn(t, d, 0), 0)
			delete(d, "logs")
			d["version"] = 1
		}, "version 1 replay: it predates exact answers"},
		{"version 2 of built-ins relabelled 1, an answer changed", greedy, func(t *testing.T, d doc) {
			seatOf(t, d, firstOKTurn(t, d, 0), 0)["answer"] = "I cheated"
			delete(d, "logs")
			d["version"] = 1
		}, "version 1 replay: it predates exact answers"},
		{"version 1 with failed", func(*testing.T) []byte { return v1 }, func(t *testing.T, d doc) { seatOf(t, d, 1, 1)["failed"] = true },
			`version 1 replay has "failed" (turn 1, seat 1)`},
		{"version 1 with answer_base64", func(*testing.T) []byte { return v1 }, func(t *testing.T, d doc) {
			s := seatOf(t, d, 2, 0)
			delete(s, "answer")
			s["answer_base64"] = "/w=="
		}, `version 1 replay has "answer_base64" (turn 2, seat 0)`},
		{"version 1 with answer_sha256", func(*testing.T) []byte { return v1 }, func(t *testing.T, d doc) {
			s := seatOf(t, d, 2, 0)
			s["answer"] = strings.Repeat("x", replay.AnswerPrefix)
			s["answer_len"], s["answer_sha256"] = 5000, strings.Repeat("ab", 32)
		}, `version 1 replay has "answer_len" (turn 2, seat 0)`},
		{"version 1 with logs", func(*testing.T) []byte { return v1 }, func(t *testing.T, d doc) { d["logs"] = []any{} },
			`version 1 replay has "logs"`},
		{"version 1 with resumed_after", func(*testing.T) []byte { return v1 }, func(t *testing.T, d doc) { d["resumed_after"] = 3 },
			`version 1 replay has "resumed_after"`},
		{"version 1 with cost_model", func(*testing.T) []byte { return v1 }, func(t *testing.T, d doc) {
			d["bots"].([]any)[1].(doc)["spec"] = "wasm:x.wasm"
			d["bots"].([]any)[1].(doc)["cost_model"] = 2
		}, `version 1 replay has "cost_model" (bot of seat 1)`},
		{"version 0", hostile, func(t *testing.T, d doc) { d["version"] = 0 }, "replay version 0 is not supported"},
		{"version as a string", hostile, func(t *testing.T, d doc) { d["version"] = "2" }, "not a replay"},

		// Fields the format does not have.
		{"unknown field in the header", hostile, func(t *testing.T, d doc) { d["verified"] = true }, `unknown field "verified"`},
		{"unknown field in a seat", hostile, func(t *testing.T, d doc) { seatOf(t, d, 3, 0)["judged"] = false }, `unknown field "judged"`},
		{"unknown field in a bot", hostile, func(t *testing.T, d doc) { d["bots"].([]any)[0].(doc)["fuel_cap"] = 1 }, `unknown field "fuel_cap"`},
		{"unknown field in the result", hostile, func(t *testing.T, d doc) { d["result"].(doc)["winner"] = 1 }, `unknown field "winner"`},
		{"unknown field in a log", hostile, func(t *testing.T, d doc) { d["logs"].([]any)[0].(doc)["trusted"] = true }, `unknown field "trusted"`},
		{"version 1's cut in version 2", hostile, func(t *testing.T, d doc) { seatOf(t, d, 2, 1)["cut"] = true }, `turn 2, seat 1: "cut" is version 1's`},

		// Exact answers taken away.
		{"a judged answer deleted", greedy, func(t *testing.T, d doc) { delete(seatOf(t, d, firstOKTurn(t, d, 1), 1), "answer") },
			"seat 1: the game applied {\"orient\":\"H\",\"r\":0,\"c\":0}, replay says"},
		{"an ok answer marked cut to hide a changed status", greedy, func(t *testing.T, d doc) {
			turn := firstOKTurn(t, d, 1)
			s := seatOf(t, d, turn, 1)
			a := s["answer"].(string)
			s["answer"] = a + strings.Repeat(" ", replay.AnswerPrefix-len(a))
			s["answer_len"], s["answer_sha256"] = 5000, strings.Repeat("ab", 32)
			okToIllegal(t, d, turn, 1)
		}, "seat 1: an answer of 5000 bytes is cut (answer_sha256) with 1048576 bytes of the seat's budget"},
		{"a long answer kept whole past the budget", hostile, func(t *testing.T, d doc) {
			// Seat 0 spent its budget on turn 1; turn 9's answer was cut.
			s := seatOf(t, d, 9, 0)
			s["answer"] = `{"orient":"V","r":0,"c":0}` + strings.Repeat(" ", 5000)
			delete(s, "answer_base64")
			delete(s, "answer_len")
			delete(s, "answer_sha256")
		}, "seat 0: an answer of 5026 bytes is kept whole with 14 bytes of the seat's budget"},
		{"a failed answer kept whole over 4 KiB", hostile, func(t *testing.T, d doc) {
			s := seatOf(t, d, 13, 0)
			delete(s, "answer_base64")
			s["answer"] = strings.Repeat("x", replay.AnswerPrefix+1)
		}, "turn 13: seat 0: a failed answer of 4097 bytes is kept whole"},

		// Cost model and fuel.
		{"cost model on a built-in", hostile, func(t *testing.T, d doc) { d["bots"].([]any)[1].(doc)["cost_model"] = 2 },
			`bot of seat 1: cost_model 2 given for "builtin:greedy", which is not metered`},
		{"negative cost model", hostile, func(t *testing.T, d doc) {
			d["bots"].([]any)[0].(doc)["spec"] = "wasm:x.wasm"
			d["bots"].([]any)[0].(doc)["cost_model"] = -1
		}, "bot of seat 0: cost_model is -1"},
		{"negative fuel", hostile, func(t *testing.T, d doc) { seatOf(t, d, 3, 0)["fuel"] = -5 }, "turn 3, seat 0: fuel is -5"},

		// Seats.
		{"a bot removed", hostile, func(t *testing.T, d doc) { d["bots"] = d["bots"].([]any)[:1] }, "log of seat 1: the match has seats 0 to 0"},
		{"a bot removed, logs too", hostile, func(t *testing.T, d doc) {
			d["bots"], d["logs"] = d["bots"].([]any)[:1], d["logs"].([]any)[:1]
		}, "starting the match"},
		{"a bot added", hostile, func(t *testing.T, d doc) {
			d["bots"] = append(d["bots"].([]any), doc{"spec": "builtin:greedy"})
		}, "starting the match"},
		{"a seat's score added", hostile, func(t *testing.T, d doc) {
			r := d["result"].(doc)
			r["scores"] = append(r["scores"].([]any), 0)
		}, "scores are"},
		{"a seat's status counts added", hostile, func(t *testing.T, d doc) {
			r := d["result"].(doc)
			r["statuses"] = append(r["statuses"].([]any), doc{})
		}, "result has status counts for 3 seats, the match has 2"},
		{"a log given twice", hostile, func(t *testing.T, d doc) { d["logs"] = append(d["logs"].([]any), d["logs"].([]any)[1]) },
			"log of seat 1: out of order or twice"},
		{"a negative resumed_after", hostile, func(t *testing.T, d doc) { d["resumed_after"] = -1 }, "resumed_after is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decodeDoc(t, tc.from(t))
			tc.edit(t, d)
			data, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			r, err := replay.Parse(data)
			if err == nil {
				err = replay.Verify(r, dotsandboxes.Game{})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("after the edit: %v\nwant %q", err, tc.want)
			}
		})
	}
}

// The edits above must be all that fails: each honest replay, through the
// same generic round trip, still verifies.
func TestHonestReplaysSurviveTheRoundTrip(t *testing.T) {
	for name, get := range map[string]func() ([]byte, error){"hostile": hostileBytes, "greedy": greedyBytes} {
		data, err := get()
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(decodeDoc(t, data))
		if err != nil {
			t.Fatal(err)
		}
		r, err := replay.Parse(out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := replay.Verify(r, dotsandboxes.Game{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestParseRefusesTrailingData(t *testing.T) {
	data, err := greedyBytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, tail := range []string{"{}", `{"format":"arena-replay"}`, "x", "]"} {
		if _, err := replay.Parse(append(bytes.Clone(data), tail...)); err == nil || !strings.Contains(err.Error(), "after the replay") {
			t.Errorf("with %q after it: %v", tail, err)
		}
	}
	if _, err := replay.Parse(append(bytes.Clone(data), " \n\t"...)); err != nil {
		t.Errorf("white space after it: %v", err)
	}
}

// TestUncheckedSaysWhatVerifySkipped: a replay with bot-side failures and a
// cut answer says so; one of answers kept whole only names fuel.
func TestUncheckedSaysWhatVerifySkipped(t *testing.T) {
	got := strings.Join(hostileMatch(t).Unchecked(), "\n")
	for _, want := range []string{" bot-side failures", "1 answers kept only as a prefix", "fuel figures"} {
		if !strings.Contains(got, want) {
			t.Errorf("hostile replay: %q does not say %q", got, want)
		}
	}
	data, err := greedyBytes()
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Unchecked(); len(got) != 1 || !strings.HasPrefix(got[0], "fuel figures") {
		t.Errorf("greedy replay: %q", got)
	}
}

// TestVersion1IsReadNotVerified: a replay written before answers were kept
// exactly still parses and its board can be drawn from its actions (show),
// but Verify refuses it: none of its statuses can be recomputed.
func TestVersion1IsReadNotVerified(t *testing.T) {
	r, err := replay.Load("testdata/v1-dots-and-boxes.replay.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 1 {
		t.Fatalf("version %d", r.Version)
	}
	if err := replay.Verify(r, dotsandboxes.Game{}); !errors.Is(err, replay.ErrVersion1) {
		t.Fatalf("verify of a version 1 replay: %v", err)
	}
	st, err := r.StateAfter(dotsandboxes.Game{}, len(r.Turns))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Done() {
		t.Fatal("the drawn match is not over")
	}
	r.Turns[5].Seats[0].Action, r.Turns[5].Seats[1].Action = json.RawMessage(`{"orient":"V","r":4,"c":5}`), nil
	if _, err := r.StateAfter(dotsandboxes.Game{}, len(r.Turns)); err == nil || !strings.Contains(err.Error(), "turn 6") {
		t.Fatalf("drawing an edited version 1 replay: %v", err)
	}
}
