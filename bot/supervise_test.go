package bot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
)

// scripted is a Process whose answers are given in advance.
type scripted struct {
	replies []game.Status
	stopped *int
}

func (p *scripted) Ask(context.Context, Request) Reply {
	st := p.replies[0]
	p.replies = p.replies[1:]
	return Reply{Status: st, Line: []byte("x")}
}

func (p *scripted) Stop() { *p.stopped++ }

func TestSupervisedRestartsThenRetires(t *testing.T) {
	starts, stops := 0, 0
	start := func(context.Context) (Process, error) {
		starts++
		// Every instance answers once, then fails.
		return &scripted{replies: []game.Status{game.OK, game.Fuel}, stopped: &stops}, nil
	}
	s := NewSupervised(start, nil)
	var got []string
	for i := 0; i < 12; i++ {
		got = append(got, string(s.Act(context.Background(), Request{}).Status))
	}
	want := "ok fuel ok fuel ok fuel ok fuel retired retired retired retired"
	if strings.Join(got, " ") != want {
		t.Fatalf("statuses %v\nwant      %s", got, want)
	}
	if starts != MaxRestarts+1 || stops != MaxRestarts+1 {
		t.Fatalf("%d starts and %d stops, want %d each", starts, stops, MaxRestarts+1)
	}
	s.Close()
}

func TestSupervisedCountsFailedStarts(t *testing.T) {
	s := NewSupervised(func(context.Context) (Process, error) { return nil, errors.New("no such file") }, nil)
	for i := 0; i <= MaxRestarts; i++ {
		if r := s.Act(context.Background(), Request{}); r.Status != game.Crash || !strings.Contains(r.Detail, "no such file") {
			t.Fatalf("answer %d: %+v", i, r)
		}
	}
	if r := s.Act(context.Background(), Request{}); r.Status != game.Retired {
		t.Fatalf("after %d failed starts: %+v", MaxRestarts+1, r)
	}
}

func TestLogKeepsTheFirstPart(t *testing.T) {
	var l Log
	chunk := strings.Repeat("a", 40<<10)
	for i := 0; i < 3; i++ {
		if n, err := l.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v: a full log must not block or fail its writer", n, err)
		}
	}
	if len(l.Bytes()) != MaxLog || l.Dropped() != 3*40<<10-MaxLog {
		t.Fatalf("kept %d, dropped %d", len(l.Bytes()), l.Dropped())
	}
}
