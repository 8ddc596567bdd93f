package humanbot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/match"
)

func TestAnswerReachesAct(t *testing.T) {
	prompts := make(chan Prompt, 1)
	b := New(Options{OnPrompt: func(p Prompt) { prompts <- p }})
	done := make(chan bot.Reply)
	go func() { done <- b.Act(context.Background(), bot.Request{Turn: 7, Observation: []byte(`{}`)}) }()
	p := <-prompts
	if p.Turn != 7 {
		t.Fatalf("prompt turn %d, want 7", p.Turn)
	}
	if err := b.Answer(6, []byte(`{"x":1}`)); !errors.Is(err, ErrNotAsked) {
		t.Fatalf("answer for the wrong turn: %v, want ErrNotAsked", err)
	}
	if err := b.Answer(7, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Answer(7, []byte(`{"x":2}`)); !errors.Is(err, ErrNotAsked) {
		t.Fatalf("second answer to one prompt: %v, want ErrNotAsked", err)
	}
	r := <-done
	if r.Status != game.OK || string(r.Line) != `{"x":1}` {
		t.Fatalf("reply %+v", r)
	}
	if _, ok := b.Pending(); ok {
		t.Fatal("still pending after the answer")
	}
}

func TestWalkingAwayIsATimeout(t *testing.T) {
	b := New(Options{Limit: 20 * time.Millisecond})
	r := b.Act(context.Background(), bot.Request{Observation: []byte(`{}`)})
	if r.Status != game.Timeout {
		t.Fatalf("status %s, want timeout", r.Status)
	}
}

func TestOversizedAnswerIsRefused(t *testing.T) {
	b := New(Options{OnPrompt: func(Prompt) {}})
	go b.Act(context.Background(), bot.Request{Observation: []byte(`{}`)})
	defer b.Close()
	if err := b.Answer(0, make([]byte, MaxAnswer+1)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("got %v, want ErrTooLong", err)
	}
}

// A person who leaves a Dots and Boxes game gets the game's default for every
// one of their moves, and the match still ends after 60 turns.
func TestAbandonedGameEndsWithDefaults(t *testing.T) {
	h := New(Options{Limit: time.Millisecond, Waiting: func(obs []byte) bool {
		return string(obs[:len(`{"you":0,"to_move":0`)]) == `{"you":0,"to_move":0`
	}})
	g := dotsandboxes.Game{}
	house, err := bot.OpenBuiltin("greedy", bot.Match{Game: g, Seed: 3, Seat: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := match.Run(context.Background(), g, game.Config{Seed: 3, Players: 2}, []bot.Bot{h, house},
		[]bot.Identity{{Spec: "human:you"}, {Spec: "builtin:greedy"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Result.Turns != 60 {
		t.Fatalf("%d turns, want 60", r.Result.Turns)
	}
	st := r.Result.Statuses[0]
	if st[game.Timeout] == 0 || st[game.Timeout]+st[game.Ignored] != 60 {
		t.Fatalf("human statuses %v: want a timeout on each of its moves, ignored elsewhere", st)
	}
}

// After one missed move the person gets AwayLimit per move, and the full
// limit again once they answer. The away limit leaves the test time to
// answer on a loaded machine; the full limit is four times longer.
func TestAwayPlayerGetsShortTurns(t *testing.T) {
	const limit, away = time.Second, 250 * time.Millisecond
	prompts := make(chan Prompt, 4)
	b := New(Options{Limit: limit, AwayLimit: away, OnPrompt: func(p Prompt) { prompts <- p }})
	start := time.Now()
	if r := b.Act(context.Background(), bot.Request{Turn: 0}); r.Status != game.Timeout {
		t.Fatalf("first missed move: %s", r.Status)
	}
	<-prompts
	if time.Since(start) < limit {
		t.Fatal("the first move did not get the full limit")
	}
	start = time.Now()
	if r := b.Act(context.Background(), bot.Request{Turn: 1}); r.Status != game.Timeout || !strings.Contains(r.Detail, away.String()) {
		t.Fatalf("second missed move: %s (%s), want a timeout after the away limit", r.Status, r.Detail)
	}
	<-prompts
	if d := time.Since(start); d >= limit {
		t.Fatalf("an away player waited %s, want the away limit", d)
	}
	done := make(chan bot.Reply)
	go func() { done <- b.Act(context.Background(), bot.Request{Turn: 2}) }()
	<-prompts
	if err := b.Answer(2, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.Status != game.OK {
		t.Fatalf("the answer to turn 2: %s", r.Status)
	}
	start = time.Now()
	if r := b.Act(context.Background(), bot.Request{Turn: 3}); r.Status != game.Timeout || !strings.Contains(r.Detail, limit.String()) {
		t.Fatalf("turn 3: %s (%s), want a timeout after the full limit", r.Status, r.Detail)
	}
	if time.Since(start) < limit {
		t.Fatal("a player who came back did not get the full limit again")
	}
}

// An answer given as the time runs out is taken for that question, never
// left over to answer the next one.
func TestAnswerAtTheDeadlineIsNotCarriedOver(t *testing.T) {
	for i := 0; i < 200; i++ {
		b := New(Options{Limit: time.Millisecond, AwayLimit: time.Millisecond})
		answered := make(chan error, 1)
		b.opts.OnPrompt = func(p Prompt) {
			go func() { answered <- b.Answer(p.Turn, []byte(`{"turn":0}`)) }()
		}
		r := b.Act(context.Background(), bot.Request{Turn: 0})
		err := <-answered
		if (err == nil) != (r.Status == game.OK) {
			t.Fatalf("run %d: Answer said %v, Act said %s: an answer taken must be the reply", i, err, r.Status)
		}
		b.opts.OnPrompt = nil
		next := b.Act(context.Background(), bot.Request{Turn: 1})
		if next.Status == game.OK {
			t.Fatalf("run %d: turn 1 was answered with %q, a line given for turn 0", i, next.Line)
		}
	}
}
