package dotsandboxes

import (
	"fmt"
	"strconv"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// ID is the game's id on the command line and in replays.
const ID = "dots-and-boxes"

// Game is Dots and Boxes. It has no parameters: the board is always 5x5.
type Game struct{}

// Info describes the game.
func (Game) Info() game.Info {
	return game.Info{ID: ID, Name: "Dots and Boxes", Players: []int{2}, Fuel: game.DefaultFuel, Ties: true}
}

// New starts a match. The seed only sets the nonce: the board starts empty.
func (Game) New(cfg game.Config) (game.State, error) {
	if cfg.Players != 2 {
		return nil, fmt.Errorf("%s is for 2 players, not %d", ID, cfg.Players)
	}
	if err := cfg.Params.CheckKnown(); err != nil {
		return nil, fmt.Errorf("%s: %w", ID, err)
	}
	return NewState(Nonce(cfg.Seed)), nil
}

// Nonce derives the observation's per-match entropy from the match seed. It
// stays below 2^31 so that every JSON reader handles it exactly.
func Nonce(seed uint64) int64 { return int64(rng.Mix(seed, 0x6e6f6e6365) & 0x7fffffff) }

// State is a match in progress.
type State struct {
	Board
	Nonce int64
}

// NewState returns the empty board with the given nonce.
func NewState(nonce int64) *State { return &State{Nonce: nonce} }

// Params returns no parameters: the game has none.
func (s *State) Params() game.Params { return game.Params{} }

// Players is always 2.
func (s *State) Players() int { return 2 }

// Turn is the number of turns resolved: one edge each.
func (s *State) Turn() int { return s.Board.Turn() }

// Done reports whether all 60 edges are drawn.
func (s *State) Done() bool { return s.Over() }

var bothSeats = []int{0, 1}

// Asked returns both seats: the page asks both every turn and applies only
// the mover's answer; none once the game is over.
func (s *State) Asked() []int {
	if s.Over() {
		return nil
	}
	return bothSeats
}

// Scores returns the boxes each seat has closed.
func (s *State) Scores() []int64 { return []int64{int64(s.Score(0)), int64(s.Score(1))} }

// Placement orders the seats by boxes; with 25 boxes there is never a tie,
// but a full board is not required to ask, and then seat 0 comes first.
func (s *State) Placement() []int {
	if s.Score(1) > s.Score(0) {
		return []int{1, 0}
	}
	return []int{0, 1}
}

// Hash mixes every field of the state.
func (s *State) Hash() uint64 {
	h := rng.Mix(s.Drawn, uint64(s.Owned[0]), uint64(s.Owned[1]), uint64(s.ToMove), uint64(s.Nonce))
	return h
}

// AppendObservation writes the page's observation object, field for field.
func (s *State) AppendObservation(dst []byte, seat int) []byte {
	dst = append(dst, `{"you":`...)
	dst = strconv.AppendInt(dst, int64(seat), 10)
	dst = append(dst, `,"to_move":`...)
	dst = strconv.AppendInt(dst, int64(s.ToMove), 10)
	dst = append(dst, `,"rows":5,"cols":5,"h":[`...)
	for e := Edge(0); e < NumEdges; e++ {
		r, c := e.RC()
		switch {
		case e == NumH:
			dst = append(dst, `],"v":[`...)
			fallthrough
		case c == 0:
			if r > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
		default:
			dst = append(dst, ',')
		}
		dst = strconv.AppendBool(dst, s.IsDrawn(e))
		if (e.Horizontal() && c == Cols-1) || (!e.Horizontal() && c == Cols) {
			dst = append(dst, ']')
		}
	}
	dst = append(dst, `],"owner":[`...)
	for r := 0; r < Rows; r++ {
		if r > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		for c := 0; c < Cols; c++ {
			if c > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(s.Owner(r, c)), 10)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `],"scores":[`...)
	dst = strconv.AppendInt(dst, int64(s.Score(0)), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(s.Score(1)), 10)
	dst = append(dst, `],"turn":`...)
	dst = strconv.AppendInt(dst, int64(s.Turn()), 10)
	dst = append(dst, `,"nonce":`...)
	dst = strconv.AppendInt(dst, s.Nonce, 10)
	return append(dst, '}')
}

// Action is the answer a bot sends: one edge. Every field is required.
type Action struct {
	Orient string `json:"orient"`
	R      int    `json:"r"`
	C      int    `json:"c"`
}

// ParseAction reads an answer line. It returns game.Malformed when the line is
// not the JSON the page documents and game.Illegal when it names an edge that
// is off the board or already drawn.
func (s *State) ParseAction(line []byte) (Edge, game.Status, string) {
	var a Action
	if err := game.Decode(line, &a); err != nil {
		return NoEdge, game.Malformed, "not a JSON object {orient, r, c}: " + err.Error()
	}
	var e Edge
	switch a.Orient {
	case "H":
		if a.R < 0 || a.R > Rows || a.C < 0 || a.C >= Cols {
			return NoEdge, game.Illegal, fmt.Sprintf("H(%d, %d) is off the board", a.R, a.C)
		}
		e = H(a.R, a.C)
	case "V":
		if a.R < 0 || a.R >= Rows || a.C < 0 || a.C > Cols {
			return NoEdge, game.Illegal, fmt.Sprintf("V(%d, %d) is off the board", a.R, a.C)
		}
		e = V(a.R, a.C)
	default:
		return NoEdge, game.Malformed, fmt.Sprintf(`orient is %q, want "H" or "V"`, a.Orient)
	}
	if s.IsDrawn(e) {
		return NoEdge, game.Illegal, fmt.Sprintf("%s is already drawn", e)
	}
	return e, game.OK, ""
}

// String writes an edge as the page does, e.g. H(2, 3).
func (e Edge) String() string {
	r, c := e.RC()
	o := "V"
	if e.Horizontal() {
		o = "H"
	}
	return fmt.Sprintf("%s(%d, %d)", o, r, c)
}

// AppendJSON writes e as an answer line, e.g. {"orient":"H","r":2,"c":3}.
func (e Edge) AppendJSON(dst []byte) []byte {
	r, c := e.RC()
	if e.Horizontal() {
		dst = append(dst, `{"orient":"H","r":`...)
	} else {
		dst = append(dst, `{"orient":"V","r":`...)
	}
	dst = strconv.AppendInt(dst, int64(r), 10)
	dst = append(dst, `,"c":`...)
	dst = strconv.AppendInt(dst, int64(c), 10)
	return append(dst, '}')
}

// Apply resolves one turn: the mover's answer is applied if it is legal,
// otherwise the first undrawn edge is drawn on its behalf; the other seat's
// answer is ignored.
func (s *State) Apply(answers [][]byte) []game.Verdict {
	verdicts := make([]game.Verdict, 2)
	if s.Over() {
		return verdicts
	}
	mover := int(s.ToMove)
	for seat, line := range answers {
		if seat != mover && line != nil {
			verdicts[seat].Status = game.Ignored
		}
	}
	e := NoEdge
	v := &verdicts[mover]
	if line := answers[mover]; line != nil {
		e, v.Status, v.Reason = s.ParseAction(line)
	}
	if e == NoEdge {
		e = s.FirstUndrawn()
	}
	v.Action = e.AppendJSON(nil)
	s.Play(e)
	return verdicts
}
