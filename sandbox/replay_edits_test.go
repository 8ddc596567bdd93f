package sandbox_test

import (
	"context"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox"
)

// The second red team on `replay verify` (issue 9: "a hand-edited replay
// fails replay verify"): edits a cheater would make to a replay of two
// built-in bots, each of which Verify must reject.

func greedyPair(_ context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
	b, err := bot.OpenBuiltin("greedy", m)
	return b, bot.Identity{Spec: "builtin:greedy"}, err
}

func greedyReplay(t *testing.T) *replay.Replay {
	t.Helper()
	r, err := match.Runner{}.Play(context.Background(), dotsandboxes.Game{}, game.Config{Seed: 11, Players: 2}, greedyPair)
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if r, err = replay.Parse(data); err != nil {
		t.Fatal(err)
	}
	if err := replay.Verify(r, dotsandboxes.Game{}); err != nil {
		t.Fatalf("the honest replay does not verify: %v", err)
	}
	return r
}

// firstOK finds the first judged answer with status ok.
func firstOK(t *testing.T, r *replay.Replay) *replay.Seat {
	t.Helper()
	for i := range r.Turns {
		for j := range r.Turns[i].Seats {
			if s := &r.Turns[i].Seats[j]; s.Status == game.OK && !s.Failed {
				return s
			}
		}
	}
	t.Fatal("no ok answer")
	return nil
}

func TestReplayEdits(t *testing.T) {
	cases := []struct {
		name string
		edit func(t *testing.T, r *replay.Replay)
		skip string
	}{
		{"an ok answer made illegal, with the result's counts to match", func(t *testing.T, r *replay.Replay) {
			s := firstOK(t, r)
			s.Status = game.Illegal
			r.Result.Statuses[s.Seat][game.OK]--
			r.Result.Statuses[s.Seat][game.Illegal]++
		}, ""},
		{"an ok answer's bytes changed", func(t *testing.T, r *replay.Replay) {
			s := firstOK(t, r)
			s.Answer = `{"orient":"H","r":99,"c":99}`
		}, ""},
		// Version 1 replays are checked from their actions only (their
		// answers were not kept exactly), so declaring a version 2 replay
		// to be version 1 switches off the check of every status and
		// answer. Proposed fix: refuse a "version 1" replay that has what
		// only version 2 writes (logs, answer_base64, answer_sha256), and
		// judge a version 1 answer that is valid UTF-8 and not cut as
		// version 2 does; or stop accepting version 1 in verify.
		{"an ok answer made illegal, declared version 1", func(t *testing.T, r *replay.Replay) {
			s := firstOK(t, r)
			s.Status = game.Illegal
			r.Result.Statuses[s.Seat][game.OK]--
			r.Result.Statuses[s.Seat][game.Illegal]++
			r.Version = 1
		}, ""}, // fixed: Verify refuses version 1 (replay.ErrVersion1) and Parse refuses a version 1 file with version 2 fields
		{"an ok answer's bytes changed, declared version 1", func(t *testing.T, r *replay.Replay) {
			s := firstOK(t, r)
			s.Answer = "I cheated"
			r.Version = 1
		}, ""}, // fixed: Verify refuses version 1 (replay.ErrVersion1) and Parse refuses a version 1 file with version 2 fields
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.skip != "" && !*sandbox.AttackHoles {
				t.Skip(c.skip)
			}
			r := greedyReplay(t)
			c.edit(t, r)
			data, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			edited, err := replay.Parse(data)
			if err != nil {
				t.Logf("refused when read: %v", err)
				return
			}
			if err := replay.Verify(edited, dotsandboxes.Game{}); err == nil {
				t.Error("the edited replay verifies")
			} else {
				t.Logf("refused: %v", err)
			}
		})
	}
}
