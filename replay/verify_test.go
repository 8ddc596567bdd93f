package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// scripted is a bot program whose answer to each turn is fixed in advance:
// a real Process behind the real restart-and-retire rule (bot.Supervised).
type scripted struct{ turns map[int]bot.Reply }

func (p *scripted) Ask(_ context.Context, req bot.Request) bot.Reply {
	if r, ok := p.turns[req.Turn]; ok {
		return r
	}
	return bot.Reply{Status: game.OK, Line: firstUndrawn(req.State)}
}

func (p *scripted) Stop() {}

func firstUndrawn(st game.State) []byte {
	return st.(*dotsandboxes.State).FirstUndrawn().AppendJSON(nil)
}

// hostileScript answers with every kind of bytes the replay must keep
// exactly, then crashes until it is retired.
func hostileScript() map[int]bot.Reply {
	pad := func(line string, n int) []byte { return append([]byte(line), bytes.Repeat([]byte(" "), n)...) }
	ok := func(b []byte) bot.Reply { return bot.Reply{Status: game.OK, Line: b, Fuel: 7} }
	// Seat 0 moves on the first turns with even numbers (turn numbers
	// 1, 3, 5...), where the game judges its answer.
	turns := map[int]bot.Reply{
		// A legal move padded to 1 MiB: kept whole (the seat's budget).
		0: ok(pad(`{"orient":"H","r":0,"c":0}`, 1<<20-40)),
		2: ok([]byte("{\"orient\":\"\xff\",\"r\":0,\"c\":1}")),  // invalid UTF-8
		4: ok([]byte("{\"orient\":\"H\",\"r\":1,\"c\":\"\xc3")), // cut inside "é"
		6: ok([]byte("\xfe")),                                   // another invalid byte
		// Over the budget now: only a prefix and the hash are kept, and
		// the prefix ends inside a character.
		8:  ok(append(pad(`{"orient":"V","r":0,"c":0}`, replay.AnswerPrefix-27), "é"+strings.Repeat(" ", 9000)...)),
		10: ok(nil), // an empty line
		12: {Status: game.Malformed, Line: []byte("\xffno newline"), Detail: "line too long"},
	}
	for t := 14; t < 18; t++ {
		turns[t] = bot.Reply{Status: game.Crash, Detail: "trap"}
	}
	return turns
}

func hostileOpener(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
	if m.Seat == 1 {
		b, err := bot.OpenBuiltin("greedy", m)
		return b, bot.Identity{Spec: "builtin:greedy"}, err
	}
	start := func(context.Context) (bot.Process, error) { return &scripted{turns: hostileScript()}, nil }
	return bot.NewSupervised(start, &bot.Log{}), bot.Identity{Spec: "test:hostile"}, nil
}

var hostileBytes = sync.OnceValues(func() ([]byte, error) {
	r, err := match.Runner{}.Play(context.Background(), dotsandboxes.Game{}, game.Config{Seed: 4, Players: 2}, hostileOpener)
	if err != nil {
		return nil, err
	}
	return r.Marshal()
})

// hostileMatch plays the match once per test binary and returns a fresh
// copy of its replay, read back from the file format as a user's would be.
func hostileMatch(t *testing.T) *replay.Replay {
	t.Helper()
	data, err := hostileBytes()
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHostileAnswersAreKeptExactly(t *testing.T) {
	r := hostileMatch(t)
	want := hostileScript()
	for turn := range want {
		s := r.Turns[turn].Seats[0]
		if turn >= 14 {
			continue
		}
		b, whole, err := s.AnswerBytes()
		if err != nil {
			t.Fatal(err)
		}
		line := want[turn].Line
		if turn == 8 { // cut: a prefix and the hash of the whole
			if whole || !bytes.Equal(b, line[:replay.AnswerPrefix]) || s.AnswerLen != len(line) {
				t.Fatalf("turn %d: kept %d bytes, whole=%v, len %d", turn+1, len(b), whole, s.AnswerLen)
			}
			continue
		}
		if !whole || !bytes.Equal(b, line) {
			t.Fatalf("turn %d: kept %q (whole=%v), sent %q", turn+1, clip(b), whole, clip(line))
		}
	}
	st := r.Turns[6].Seats[0]
	if st.AnswerBase64 == "" || st.Answer != "" {
		t.Fatalf("an invalid UTF-8 answer is not kept in base64: %+v", st)
	}
	if got := r.Turns[12].Seats[0]; !got.Failed || got.Status != game.Malformed {
		t.Fatalf("a bot-side malformed answer is recorded as %+v", got)
	}
	for i, tr := range r.Turns[14:] {
		wantStatus := game.Crash
		if i >= bot.MaxRestarts {
			wantStatus = game.Retired
		}
		if s := tr.Seats[0]; s.Status != wantStatus || !s.Failed {
			t.Fatalf("turn %d: %s (failed=%v), want %s", tr.Turn, s.Status, s.Failed, wantStatus)
		}
	}
	if err := replay.Verify(r, dotsandboxes.Game{}); err != nil {
		t.Fatalf("an honest replay does not verify: %v", err)
	}
}

// TestHostileAnswersRerunClean: answers that are invalid UTF-8, cut inside
// a character or a megabyte long compare equal on a re-run, bit for bit.
func TestHostileAnswersRerunClean(t *testing.T) {
	r := hostileMatch(t)
	if err := (match.Runner{}).Rerun(context.Background(), r, dotsandboxes.Game{}, hostileOpener); err != nil {
		t.Fatalf("re-run: %v", err)
	}
	// An answer kept only as a prefix and hash is checked by the re-run,
	// which verify cannot do.
	edited := hostileMatch(t)
	edited.Turns[8].Seats[0].AnswerSHA256 = strings.Repeat("0", 64)
	if err := replay.Verify(edited, dotsandboxes.Game{}); err != nil {
		t.Fatalf("verify cannot see the hash of a cut answer, yet: %v", err)
	}
	err := (match.Runner{}).Rerun(context.Background(), edited, dotsandboxes.Game{}, hostileOpener)
	if err == nil || !strings.Contains(err.Error(), "turn 9, seat 0: answered") {
		t.Fatalf("re-run of an edited cut answer: %v", err)
	}
	// And a re-run whose bot sends different invalid bytes is caught, which
	// version 1 (both read as U+FFFD) could not tell.
	other := func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
		if m.Seat == 1 {
			return hostileOpener(ctx, m)
		}
		script := hostileScript()
		script[6] = bot.Reply{Status: game.OK, Line: []byte("\xfd"), Fuel: 7}
		start := func(context.Context) (bot.Process, error) { return &scripted{turns: script}, nil }
		return bot.NewSupervised(start, nil), bot.Identity{Spec: "test:hostile"}, nil
	}
	err = (match.Runner{}).Rerun(context.Background(), r, dotsandboxes.Game{}, other)
	if err == nil || !strings.Contains(err.Error(), "turn 7, seat 0: answered") {
		t.Fatalf("a different invalid byte re-ran as: %v", err)
	}
}

// TestFloodingBotsReplayIsBounded: a bot that answers a megabyte every turn
// gets one kept whole, then prefixes and hashes; the replay stays small,
// verifies and re-runs.
func TestFloodingBotsReplayIsBounded(t *testing.T) {
	flood := func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
		if m.Seat == 1 {
			return hostileOpener(ctx, m)
		}
		turns := map[int]bot.Reply{}
		for i := 0; i < 60; i++ {
			turns[i] = bot.Reply{Status: game.OK, Line: append([]byte(`{"orient":"H","r":0,"c":0}`), bytes.Repeat([]byte{' '}, 1<<20-30)...)}
		}
		start := func(context.Context) (bot.Process, error) { return &scripted{turns: turns}, nil }
		return bot.NewSupervised(start, nil), bot.Identity{Spec: "test:flood"}, nil
	}
	r, err := match.Runner{}.Play(context.Background(), dotsandboxes.Game{}, game.Config{Seed: 4, Players: 2}, flood)
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if max := replay.AnswerBudget + 60*(replay.AnswerPrefix+200) + 64<<10; len(data) > max {
		t.Fatalf("the replay is %d bytes, more than %d", len(data), max)
	}
	if err := replay.Verify(r, dotsandboxes.Game{}); err != nil {
		t.Fatal(err)
	}
	if err := (match.Runner{}).Rerun(context.Background(), r, dotsandboxes.Game{}, flood); err != nil {
		t.Fatal(err)
	}
}

func clip(b []byte) []byte {
	if len(b) > 50 {
		return b[:50]
	}
	return b
}

// Each hand edit of an honest replay must fail verify, naming where.
func TestVerifyRejectsHandEdits(t *testing.T) {
	seat := func(r *replay.Replay, turn, seat int) *replay.Seat {
		for i := range r.Turns[turn-1].Seats {
			if s := &r.Turns[turn-1].Seats[i]; s.Seat == seat {
				return s
			}
		}
		t.Fatalf("turn %d has no seat %d", turn, seat)
		return nil
	}
	for _, tc := range []struct {
		name string
		edit func(r *replay.Replay)
		want string
	}{
		{"status of a judged answer", func(r *replay.Replay) { seat(r, 3, 0).Status = game.OK }, "turn 3: seat 0: the game gives"},
		{"status of an ignored answer", func(r *replay.Replay) { seat(r, 1, 1).Status = game.Illegal }, "turn 1: seat 1: the game gives"},
		{"answer text", func(r *replay.Replay) { seat(r, 12, 1).Answer = `{"orient":"V","r":4,"c":5}` }, "turn 12"},
		{"answer bytes (base64)", func(r *replay.Replay) { seat(r, 7, 0).AnswerBase64 = "/Q==" }, "turn 7: seat 0: the game gives the reason"},
		{"answer becomes invalid base64", func(r *replay.Replay) { seat(r, 7, 0).AnswerBase64 = "!!" }, "turn 7, seat 0: answer_base64"},
		{"action", func(r *replay.Replay) { seat(r, 12, 0).Action = json.RawMessage(`{"orient":"V","r":4,"c":5}`) }, "turn 12: seat 0: the game applied"},
		{"action of a cut answer", func(r *replay.Replay) { seat(r, 9, 0).Action = json.RawMessage(`{"orient":"V","r":4,"c":5}`) }, "turn 9: state hash"},
		{"reason", func(r *replay.Replay) { seat(r, 5, 0).Reason = "fine" }, "turn 5: seat 0: the game gives the reason"},
		{"bot failure turned ok", func(r *replay.Replay) { s := seat(r, 15, 0); s.Status, s.Failed = game.OK, false }, "turn 15: seat 0: the game gives"},
		{"failure status made up", func(r *replay.Replay) { seat(r, 15, 0).Status = game.Ignored }, "turn 15: seat 0: \"ignored\" is not a status"},
		{"failure flag dropped", func(r *replay.Replay) { seat(r, 15, 0).Failed = false }, "turn 15: seat 0: the game gives"},
		{"retired too early", func(r *replay.Replay) { seat(r, 16, 0).Status = game.Retired }, "turn 16: seat 0 is retired after 2 failures"},
		{"back from retirement", func(r *replay.Replay) { s := seat(r, 30, 0); s.Status, s.Failed = game.Crash, true }, "turn 30: seat 0: status crash after"},
		{"a bot added", func(r *replay.Replay) { r.Bots = append(r.Bots, bot.Identity{Spec: "x"}) }, "starting the match"},
		{"seat removed", func(r *replay.Replay) { r.Turns[30].Seats = r.Turns[30].Seats[:1] }, "turn 31: seat 1 was asked"},
		{"state hash", func(r *replay.Replay) { r.Turns[40].Hash = replay.HashString(1) }, "turn 41: state hash"},
		{"turn removed", func(r *replay.Replay) { r.Turns = append(r.Turns[:50], r.Turns[51:]...) }, "turn 51 is numbered 52"},
		{"last turn removed", func(r *replay.Replay) { r.Turns = r.Turns[:len(r.Turns)-1] }, "not over"},
		{"score", func(r *replay.Replay) { r.Result.Scores[1]++ }, "scores are"},
		{"placement", func(r *replay.Replay) { p := r.Result.Placement; p[0], p[1] = p[1], p[0] }, "placement is"},
		{"status counts", func(r *replay.Replay) { r.Result.Statuses[0][game.OK]++ }, "seat 0: the turns give the status counts"},
		{"turn count", func(r *replay.Replay) { r.Result.Turns-- }, "result says"},
		{"seed", func(r *replay.Replay) { r.Seed++ }, "initial state hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := hostileMatch(t)
			tc.edit(r)
			// Through the file format again: the edit is what a user's
			// editor would leave.
			data, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := replay.Parse(data)
			if err == nil {
				err = replay.Verify(back, dotsandboxes.Game{})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("verify after editing the %s: %v, want %q", tc.name, err, tc.want)
			}
		})
	}
}

// FuzzVerify feeds mutated real replays to the decoder and to Verify: any
// input is refused with an error or accepted, never a panic.
func FuzzVerify(f *testing.F) {
	for _, name := range []string{"testdata/v1-dots-and-boxes.replay.json", "../games/dotsandboxes/testdata/greedy-random-1.replay.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"format":"arena-replay","version":2,"game":"dots-and-boxes","bots":[{},{}],"initial_hash":"x","turns":[{"turn":1,"seats":[{"seat":0,"answer_base64":"/w==","answer_len":5000,"answer_sha256":"00"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := replay.Parse(data)
		if err != nil {
			return
		}
		if err := replay.Verify(r, dotsandboxes.Game{}); err == nil && r.Game != dotsandboxes.ID {
			t.Fatal(fmt.Sprintf("verified a replay of %q as dots-and-boxes", r.Game))
		}
	})
}
