package gametest_test

import (
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/game/gametest"
	"github.com/arenabots/arena/games/dotsandboxes"
)

// A game with one bug each: the suite must name it. The bugs wrap Dots and
// Boxes, which passes.

type bugGame struct {
	dotsandboxes.Game
	wrap func(*dotsandboxes.State) game.State
}

func (g bugGame) New(cfg game.Config) (game.State, error) {
	st, err := g.Game.New(cfg)
	if err != nil {
		return nil, err
	}
	return g.wrap(st.(*dotsandboxes.State)), nil
}

type sharedClone struct{ *dotsandboxes.State }

func (s sharedClone) Clone() game.State { return s }

type lenientValidate struct{ *dotsandboxes.State }

func (s lenientValidate) Validate(seat int, a []byte) game.Verdict {
	v := s.State.Validate(seat, a)
	if v.Status == game.Malformed {
		v.Status = game.Illegal
	}
	return v
}

type askedAtEnd struct{ *dotsandboxes.State }

func (s askedAtEnd) Asked() []int { return []int{0, 1} }

type lossyObservation struct{ *dotsandboxes.State }

func (s lossyObservation) NewObservation() any {
	return new(struct {
		You int `json:"you"`
	})
}

type fewLegal struct{ *dotsandboxes.State }

// LegalAnswers lists an answer the game refuses.
func (s fewLegal) LegalAnswers(seat int) [][]byte {
	if seat != int(s.ToMove) {
		return nil
	}
	return [][]byte{[]byte(`{"orient":"H","r":9,"c":9}`)}
}

type noClone struct{ game.State }

func TestTheSuiteFindsBugs(t *testing.T) {
	if err := gametest.Check(dotsandboxes.Game{}, 2, gametest.Options{Seeds: 3}); err != nil {
		t.Fatalf("Dots and Boxes itself: %v", err)
	}
	for _, tc := range []struct {
		name string
		wrap func(*dotsandboxes.State) game.State
		want string
	}{
		{"clone shares the state", func(s *dotsandboxes.State) game.State { return sharedClone{s} }, "changed the state it was cloned from"},
		{"validate disagrees with apply", func(s *dotsandboxes.State) game.State { return lenientValidate{s} }, "Apply gives malformed"},
		{"asked after the end", func(s *dotsandboxes.State) game.State { return askedAtEnd{s} }, "over, yet Asked"},
		{"observation loses fields", func(s *dotsandboxes.State) game.State { return lossyObservation{s} }, "does not round-trip"},
		{"a listed answer is illegal", func(s *dotsandboxes.State) game.State { return fewLegal{s} }, "legal answer"},
		{"no conformance methods", func(s *dotsandboxes.State) game.State { return noClone{s} }, "lacks Clone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := gametest.Check(bugGame{wrap: tc.wrap}, 2, gametest.Options{Seeds: 2})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
