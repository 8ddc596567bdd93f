// Package linesandboxes is the game of the 2006 POTM contest "LINES and
// BOXES": Dots and Boxes where a move may draw a line several boxes long,
// turns alternate even after a capture, and the board may start with lines
// drawn. docs/games/lines-and-boxes.md documents it for bot authors.
package linesandboxes

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// FuelPerGame is a wasm bot's tank for a whole game: a chess clock in the
// spirit of the contest's 60 seconds, a fraction of a second of real compute.
const FuelPerGame = 1_000_000_000

// FuelPerAnswer is the most one answer may spend of that clock: the
// start-up allowance, which the cost model prices to run in well under half
// of the wall-clock backstop, where the whole clock would not (docs/fuel.md).
const FuelPerAnswer = 100_000_000

// Box owners besides the seats.
const (
	Open   = -1 // not closed yet
	Nobody = -2 // closed by the pre-drawn lines
)

// Game is Lines and Boxes.
type Game struct{}

// Info describes the game and its parameters.
func (Game) Info() game.Info {
	return game.Info{
		ID:      "lines-and-boxes",
		Name:    "Lines and Boxes",
		Players: []int{2},
		Params: []game.ParamInfo{
			{Name: "rows", Default: "5", Doc: "rows of boxes, 3 to 8; 0 draws it from the seed", Int: true, Min: 3, Max: 8, Label: "Rows"},
			{Name: "cols", Default: "5", Doc: "columns of boxes, 3 to 8; 0 draws it from the seed", Int: true, Min: 3, Max: 8, Label: "Columns"},
			{Name: "board", Default: "", Doc: `pre-drawn lines, e.g. "A2-A3,A2-B2"`},
			// The game takes fewer pre-drawn lines than the board has unit
			// edges; a person picks up to 40.
			{Name: "predrawn", Default: "0", Doc: "random pre-drawn lines to add from the seed, fewer than the unit edges left; -1 draws the number too", Int: true, Min: 0, Max: 40, Label: "Pre-drawn lines"},
		},
		Fuel:   game.FuelPolicy{PerGame: FuelPerGame, PerAnswer: FuelPerAnswer},
		Ties:   true,
		Varied: game.Params{"rows": "0", "cols": "0", "predrawn": "-1"},
	}
}

// A Move is one line drawn, by a seat or (Player -1) before the game.
type Move struct {
	Player int
	Seg    Segment
}

// State is one game in progress. Seat 0 is the contest's player 1 and moves first.
type State struct {
	g      *geom
	drawn  edgeSet
	left   int    // undrawn edges
	owner  []int8 // per box r*cols+c: Open, Nobody or a seat
	scores [2]int64
	toMove int
	turn   int
	moves  []Move // pre-drawn first, then the players'
	params game.Params
}

// New starts a game from cfg: see Info for the parameters.
func (Game) New(cfg game.Config) (game.State, error) {
	if cfg.Players != 2 {
		return nil, fmt.Errorf("lines-and-boxes is for 2 players, not %d", cfg.Players)
	}
	return NewState(cfg.Seed, cfg.Params)
}

// boardFromInputFile reads a starting board given as a contest input file
// (the board parameter holds the file's text): its size and its 0 moves.
// Explicit rows and cols must agree with the file.
func boardFromInputFile(p game.Params, rows, cols int) (int, int, []Segment, error) {
	f, err := ParseInputFile([]byte(p["board"]))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("parameter board: %w", err)
	}
	if (p["rows"] != "" && rows != f.Rows) || (p["cols"] != "" && cols != f.Cols) {
		return 0, 0, nil, fmt.Errorf("parameter board: the input file is for %dx%d boxes, but rows=%d cols=%d", f.Rows, f.Cols, rows, cols)
	}
	var segs []Segment
	for i, m := range f.Moves {
		if m.Player != 0 {
			return 0, 0, nil, fmt.Errorf("parameter board: move %d of the input file is player %d's; a starting board takes only 0 moves", i+1, m.Player)
		}
		segs = append(segs, m.Seg)
	}
	return f.Rows, f.Cols, segs, nil
}

// NewState is New with the concrete type.
func NewState(seed uint64, p game.Params) (*State, error) {
	if err := p.CheckKnown("rows", "cols", "board", "predrawn"); err != nil {
		return nil, err
	}
	rows, err := p.Int("rows", 5)
	if err != nil {
		return nil, err
	}
	cols, err := p.Int("cols", 5)
	if err != nil {
		return nil, err
	}
	predrawn, err := p.Int("predrawn", 0)
	if err != nil {
		return nil, err
	}
	var segs []Segment
	if strings.Contains(p["board"], "\n") {
		rows, cols, segs, err = boardFromInputFile(p, rows, cols)
	} else {
		segs, err = ParseSegments(p["board"])
	}
	if err != nil {
		return nil, err
	}
	src := rng.New(rng.Mix(seed, 0x1b0a))
	if rows == 0 {
		rows = MinSize + src.Intn(MaxSize-MinSize+1)
	}
	if cols == 0 {
		cols = MinSize + src.Intn(MaxSize-MinSize+1)
	}
	s, err := newEmpty(rows, cols)
	if err != nil {
		return nil, err
	}
	for _, seg := range segs {
		if err := s.predraw(seg); err != nil {
			return nil, fmt.Errorf("parameter board: %w", err)
		}
	}
	if predrawn < -1 {
		return nil, fmt.Errorf("parameter predrawn=%d: want a count, or -1 for a random one", predrawn)
	}
	if predrawn == -1 {
		predrawn = src.Intn(s.g.n/12 + 1)
	}
	if predrawn >= s.left {
		return nil, fmt.Errorf("parameter predrawn=%d: a %dx%d board has %d unit edges left to draw, so at most %d lines can be pre-drawn", predrawn, rows, cols, s.left, s.left-1)
	}
	s.addRandomLines(src, predrawn)
	if s.left == 0 {
		return nil, fmt.Errorf("the starting board leaves no line to draw")
	}
	var board []string
	for _, m := range s.moves {
		board = append(board, m.Seg.String())
	}
	s.params = game.Params{
		"rows":     fmt.Sprint(rows),
		"cols":     fmt.Sprint(cols),
		"board":    strings.Join(board, ","),
		"predrawn": "0",
	}
	return s, nil
}

func newEmpty(rows, cols int) (*State, error) {
	g, err := geomFor(rows, cols)
	if err != nil {
		return nil, err
	}
	s := &State{g: g, left: g.n, owner: make([]int8, rows*cols)}
	for i := range s.owner {
		s.owner[i] = Open
	}
	return s, nil
}

// ParseSegments reads the compact list of the board parameter, e.g.
// "A2-A3, A2-B2". Either order of the two dots is accepted.
func ParseSegments(list string) ([]Segment, error) {
	var segs []Segment
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		a, b, ok := strings.Cut(item, "-")
		if !ok {
			return nil, fmt.Errorf("line %q: want two dots joined by '-', like A2-A3", item)
		}
		from, err := ParseVertex(strings.TrimSpace(a))
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", item, err)
		}
		to, err := ParseVertex(strings.TrimSpace(b))
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", item, err)
		}
		segs = append(segs, NewSegment(from, to))
	}
	return segs, nil
}

// predraw draws a starting line; the boxes it closes belong to nobody.
func (s *State) predraw(seg Segment) error {
	edges, err := s.check(seg)
	if err != nil {
		return err
	}
	s.draw(Nobody, seg, edges)
	return nil
}

// addRandomLines draws n lines, each uniformly among the legal ones that leave
// at least one edge undrawn.
func (s *State) addRandomLines(src *rng.Source, n int) {
	for ; n > 0; n-- {
		var choices []Segment
		s.g.forEachMove(&s.drawn, func(l *line, a, b int) {
			if b-a < s.left {
				choices = append(choices, s.g.lineSegment(l, a, b))
			}
		})
		if len(choices) == 0 {
			return
		}
		seg := choices[src.Intn(len(choices))]
		if err := s.predraw(seg); err != nil {
			panic(err) // forEachMove yields legal lines only
		}
	}
}

// forEachMove calls fn for every legal line: edges a..b-1 of line l.
func (g *geom) forEachMove(drawn *edgeSet, fn func(l *line, a, b int)) {
	for li := range g.lines {
		l := &g.lines[li]
		for a := range l.edges {
			for b := a; b < len(l.edges) && !drawn.has(l.edges[b]); b++ {
				fn(l, a, b+1)
			}
		}
	}
}

// check returns the edges of seg, or why it may not be drawn now.
func (s *State) check(seg Segment) ([]int, error) {
	edges, err := s.g.segmentEdges(seg, nil)
	if err != nil {
		return nil, err
	}
	for _, e := range edges {
		if s.drawn.has(e) {
			return nil, fmt.Errorf("%v overlaps a line already drawn (%v)", seg, s.g.edgeSegment(e))
		}
	}
	return edges, nil
}

// draw draws checked edges; the boxes they close go to player (a seat or Nobody).
func (s *State) draw(player int, seg Segment, edges []int) {
	for _, e := range edges {
		s.drawn.add(e)
	}
	s.left -= len(edges)
	for _, e := range edges {
		for _, b := range s.g.edgeBoxes[e] {
			if b < 0 || s.owner[b] != Open || !s.closed(b) {
				continue
			}
			s.owner[b] = int8(player)
			if player >= 0 {
				s.scores[player]++
			}
		}
	}
	s.moves = append(s.moves, Move{Player: max(player, -1), Seg: seg})
}

func (s *State) closed(box int) bool {
	for _, e := range s.g.boxEdges[box] {
		if !s.drawn.has(e) {
			return false
		}
	}
	return true
}

// Params returns the whole starting board (see Info).
func (s *State) Params() game.Params {
	p := make(game.Params, len(s.params))
	for k, v := range s.params {
		p[k] = v
	}
	return p
}

// Players is always 2.
func (s *State) Players() int { return 2 }

// Turn counts the players' moves so far.
func (s *State) Turn() int { return s.turn }

// Done reports whether no line is left to draw.
func (s *State) Done() bool { return s.left == 0 }

// ToMove is the seat to move.
func (s *State) ToMove() int { return s.toMove }

// Rows and Cols give the board size in boxes.
func (s *State) Rows() int { return s.g.rows }

// Cols gives the number of columns of boxes.
func (s *State) Cols() int { return s.g.cols }

// Owner is the owner of box (r, c): a seat, Open or Nobody.
func (s *State) Owner(r, c int) int { return int(s.owner[r*s.g.cols+c]) }

// Moves returns every line drawn so far, pre-drawn ones first.
func (s *State) Moves() []Move { return append([]Move(nil), s.moves...) }

// Asked is the mover alone.
func (s *State) Asked() []int {
	if s.Done() {
		return nil
	}
	return []int{s.toMove}
}

// Scores are the boxes each seat captured.
func (s *State) Scores() []int64 { return []int64{s.scores[0], s.scores[1]} }

// Placement lists the seat with more boxes first; on a tie, seat 0 first
// (Scores show the tie).
func (s *State) Placement() []int {
	if s.scores[1] > s.scores[0] {
		return []int{1, 0}
	}
	return []int{0, 1}
}

// Hash mixes everything that makes the state.
func (s *State) Hash() uint64 {
	h := rng.Mix(s.drawn[0], s.drawn[1], s.drawn[2], uint64(s.scores[0]), uint64(s.scores[1]),
		uint64(s.toMove), uint64(s.turn), uint64(s.g.rows), uint64(s.g.cols))
	for _, o := range s.owner {
		h = rng.Mix(h, uint64(int64(o)))
	}
	return h
}

// Observation is the JSON object a bot is sent (docs/games/lines-and-boxes.md).
type Observation struct {
	Rows        int       `json:"rows"`
	Cols        int       `json:"cols"`
	You         int       `json:"you"`
	ToMove      int       `json:"to_move"`
	Turn        int       `json:"turn"`
	H           [][]bool  `json:"h"`
	V           [][]bool  `json:"v"`
	Boxes       [][]int   `json:"boxes"`
	Scores      []int64   `json:"scores"`
	Moves       []ObsMove `json:"moves"`
	FuelPerGame int64     `json:"fuel_per_game"`
}

// ObsMove is one line of the observation's move list; Player is -1 for a
// pre-drawn line.
type ObsMove struct {
	Player int    `json:"player"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// Observe builds the observation for seat.
func (s *State) Observe(seat int) Observation {
	g := s.g
	o := Observation{
		Rows: g.rows, Cols: g.cols, You: seat, ToMove: s.toMove, Turn: s.turn,
		Scores: s.Scores(), Moves: make([]ObsMove, len(s.moves)), FuelPerGame: FuelPerGame,
	}
	for r := 0; r <= g.rows; r++ {
		row := make([]bool, g.cols)
		for c := range row {
			row[c] = s.drawn.has(g.h(r, c))
		}
		o.H = append(o.H, row)
	}
	for r := 0; r < g.rows; r++ {
		row := make([]bool, g.cols+1)
		for c := range row {
			row[c] = s.drawn.has(g.v(r, c))
		}
		o.V = append(o.V, row)
		boxes := make([]int, g.cols)
		for c := range boxes {
			boxes[c] = s.Owner(r, c)
		}
		o.Boxes = append(o.Boxes, boxes)
	}
	for i, m := range s.moves {
		o.Moves[i] = ObsMove{Player: m.Player, From: m.Seg.From.String(), To: m.Seg.To.String()}
	}
	return o
}

// AppendObservation appends the JSON observation for seat.
func (s *State) AppendObservation(dst []byte, seat int) []byte {
	b, err := json.Marshal(s.Observe(seat))
	if err != nil {
		panic(err) // plain data always marshals
	}
	return append(dst, b...)
}

// Action is the JSON answer: two dots in either order.
type Action struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ParseAction reads an answer line into a canonical segment. Its error means
// the answer is malformed; whether the segment is legal is for Check.
func ParseAction(line []byte) (Segment, error) {
	var a Action
	if err := game.Decode(line, &a); err != nil {
		return Segment{}, fmt.Errorf(`not a JSON action {"from": "A3", "to": "C3"}: %v`, err)
	}
	from, err := ParseVertex(a.From)
	if err != nil {
		return Segment{}, err
	}
	to, err := ParseVertex(a.To)
	if err != nil {
		return Segment{}, err
	}
	return NewSegment(from, to), nil
}

// Check says why seg may not be drawn now, or nil when it may.
func (s *State) Check(seg Segment) error {
	_, err := s.check(seg)
	return err
}

// ActionJSON is the canonical answer for seg, as the replay records it.
func ActionJSON(seg Segment) []byte {
	return []byte(`{"from":"` + seg.From.String() + `","to":"` + seg.To.String() + `"}`)
}

// DefaultMove is the move a bad or missing answer gets: the first undrawn
// unit edge in index order (horizontal edges row by row, then vertical ones).
func (s *State) DefaultMove() Segment {
	for e := 0; e < s.g.n; e++ {
		if !s.drawn.has(e) {
			return s.g.edgeSegment(e)
		}
	}
	panic("linesandboxes: DefaultMove on a finished game")
}

// Play draws seg for the seat to move, or says why it may not.
func (s *State) Play(seg Segment) error {
	if s.Done() {
		return fmt.Errorf("the game is over")
	}
	edges, err := s.check(seg)
	if err != nil {
		return err
	}
	s.draw(s.toMove, seg, edges)
	s.toMove = 1 - s.toMove
	s.turn++
	return nil
}

// Apply plays the mover's answer, or the default move instead of a bad or
// missing one. The seat not to move gets an empty verdict: it was not asked.
func (s *State) Apply(answers [][]byte) []game.Verdict {
	verdicts := make([]game.Verdict, 2)
	if s.Done() {
		return verdicts
	}
	mover := s.toMove
	v := &verdicts[mover]
	var answer []byte
	if mover < len(answers) {
		answer = answers[mover]
	}
	seg := s.DefaultMove()
	if answer != nil {
		if asked, err := ParseAction(answer); err != nil {
			v.Status, v.Reason = game.Malformed, err.Error()
		} else if err := s.Check(asked); err != nil {
			v.Status, v.Reason = game.Illegal, err.Error()
		} else {
			v.Status, seg = game.OK, asked
		}
	}
	if err := s.Play(seg); err != nil {
		panic(err) // seg is checked or the default, which is always legal
	}
	v.Action = ActionJSON(seg)
	return verdicts
}
