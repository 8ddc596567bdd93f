package snake

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/arenabots/arena/game"
)

// Answer is one snake's answer: a move and what it says.
type Answer struct {
	Move  Dir
	Shout string
}

// The answer as it travels: {"move":"up","shout":"..."}; the shout is
// optional, other fields are ignored, the protocol's strict rules apply.
type wireAnswer struct {
	Move  string  `json:"move"`
	Shout *string `json:"shout"`
}

// ParseAnswer reads one answer line. An error means the line is malformed
// (not the JSON the game expects, or a move that is not up, down, left or
// right). A shout longer than MaxShout bytes is cut there, at a character.
func ParseAnswer(line []byte) (Answer, error) {
	var w wireAnswer
	if err := game.Decode(line, &w); err != nil {
		return Answer{}, fmt.Errorf("not a move: %w", err)
	}
	var a Answer
	switch w.Move {
	case "up":
		a.Move = Up
	case "down":
		a.Move = Down
	case "left":
		a.Move = Left
	case "right":
		a.Move = Right
	default:
		return Answer{}, fmt.Errorf("move %s is not one of up, down, left, right", clipQuote(w.Move))
	}
	if w.Shout != nil {
		a.Shout = cutShout(*w.Shout)
	}
	return a, nil
}

func clipQuote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

// cutShout keeps at most MaxShout bytes, ending on a whole character.
func cutShout(s string) string {
	if len(s) <= MaxShout {
		return s
	}
	s = s[:MaxShout]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// AppendAnswer appends a as canonical compact JSON: the move, and the
// shout when there is one.
func AppendAnswer(dst []byte, a Answer) []byte {
	dst = append(dst, `{"move":"`...)
	dst = append(dst, a.Move.String()...)
	dst = append(dst, '"')
	if a.Shout != "" {
		q, _ := json.Marshal(a.Shout) // a string always marshals
		dst = append(dst, `,"shout":`...)
		dst = append(dst, q...)
	}
	return append(dst, '}')
}

// Apply resolves one turn from the live snakes' answer lines. A missing
// answer (nil) or a malformed one is the snake's default move.
func (s *State) Apply(answers [][]byte) []game.Verdict {
	verdicts := make([]game.Verdict, s.N)
	if s.Over {
		return verdicts
	}
	moves := make([]Dir, s.N)
	shouts := make([]string, s.N)
	for seat := range s.Snakes {
		sn := &s.Snakes[seat]
		if !sn.Alive() {
			continue
		}
		a := Answer{Move: sn.DefaultMove()}
		if seat < len(answers) && answers[seat] != nil {
			got, err := ParseAnswer(answers[seat])
			if err != nil {
				verdicts[seat] = game.Verdict{Status: game.Malformed, Reason: err.Error()}
			} else {
				a = got
				verdicts[seat].Status = game.OK
			}
		}
		verdicts[seat].Action = AppendAnswer(nil, a)
		moves[seat], shouts[seat] = a.Move, a.Shout
	}
	s.Step(moves, shouts)
	return verdicts
}

// Validate is the verdict Apply would give seat's answer now.
func (s *State) Validate(seat int, answer []byte) game.Verdict {
	if s.Over || !s.Snakes[seat].Alive() {
		return game.Verdict{}
	}
	a, err := ParseAnswer(answer)
	if err != nil {
		return game.Verdict{Status: game.Malformed, Action: AppendAnswer(nil, Answer{Move: s.Snakes[seat].DefaultMove()}), Reason: err.Error()}
	}
	return game.Verdict{Status: game.OK, Action: AppendAnswer(nil, a)}
}

// LegalAnswers lists the four moves: every one is legal, even one into a
// wall (the snake is then eliminated).
func (s *State) LegalAnswers(seat int) [][]byte {
	if s.Over || !s.Snakes[seat].Alive() {
		return nil
	}
	out := make([][]byte, 0, 4)
	for d := Up; d <= Right; d++ {
		out = append(out, AppendAnswer(nil, Answer{Move: d}))
	}
	return out
}

// Observation is Battlesnake's /move request body, typed: what
// AppendObservation writes, field for field.
type Observation struct {
	Game  ObsGame  `json:"game"`
	Turn  int      `json:"turn"`
	Board ObsBoard `json:"board"`
	You   ObsSnake `json:"you"`
}

// ObsGame describes the match.
type ObsGame struct {
	ID      string     `json:"id"`
	Ruleset ObsRuleset `json:"ruleset"`
	Map     string     `json:"map"`
	Timeout int        `json:"timeout"`
	Source  string     `json:"source"`
}

// ObsRuleset names the rules and their settings.
type ObsRuleset struct {
	Name     string      `json:"name"`
	Version  string      `json:"version"`
	Settings ObsSettings `json:"settings"`
}

// ObsSettings are the rules' settings in Battlesnake's names.
type ObsSettings struct {
	FoodSpawnChance     int `json:"foodSpawnChance"`
	MinimumFood         int `json:"minimumFood"`
	HazardDamagePerTurn int `json:"hazardDamagePerTurn"`
}

// ObsBoard is the board.
type ObsBoard struct {
	Height  int        `json:"height"`
	Width   int        `json:"width"`
	Food    []Point    `json:"food"`
	Hazards []Point    `json:"hazards"`
	Snakes  []ObsSnake `json:"snakes"`
}

// ObsSnake is one live snake.
type ObsSnake struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Health         int       `json:"health"`
	Body           []Point   `json:"body"`
	Head           Point     `json:"head"`
	Length         int       `json:"length"`
	Latency        string    `json:"latency"`
	Shout          string    `json:"shout"`
	Customizations ObsCustom `json:"customizations"`
}

// ObsCustom is how the snake looks.
type ObsCustom struct {
	Color string `json:"color"`
	Head  string `json:"head"`
	Tail  string `json:"tail"`
}

// SeatColors are the seats' colours, on the board and in the observation.
var SeatColors = [...]string{"#e6194b", "#4363d8", "#3cb44b", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"}

// SeatID is the id of seat's snake in the observation.
func SeatID(seat int) string { return "seat-" + strconv.Itoa(seat) }

// NewObservation returns an empty typed observation to decode into.
func (s *State) NewObservation() any { return new(Observation) }

// Observe returns seat's observation, typed.
func (s *State) Observe(seat int) *Observation {
	o := &Observation{
		Game: ObsGame{
			ID: strconv.FormatUint(s.Seed, 10),
			Ruleset: ObsRuleset{Name: "standard", Version: "arena", Settings: ObsSettings{
				FoodSpawnChance: s.Set.FoodSpawnChance, MinimumFood: s.Set.MinimumFood}},
			Map: "standard", Source: "arena",
		},
		Turn: s.TurnNum,
		Board: ObsBoard{Height: s.Set.Height, Width: s.Set.Width,
			Food: append([]Point{}, s.Food...), Hazards: []Point{}, Snakes: []ObsSnake{}},
	}
	for i := range s.Snakes {
		sn := &s.Snakes[i]
		if !sn.Alive() {
			continue
		}
		os := ObsSnake{ID: SeatID(i), Name: SeatID(i), Health: sn.Health, Body: append([]Point{}, sn.Body...),
			Head: sn.Head(), Length: len(sn.Body), Latency: "0", Shout: sn.Shout,
			Customizations: ObsCustom{Color: SeatColors[i%len(SeatColors)], Head: "default", Tail: "default"}}
		o.Board.Snakes = append(o.Board.Snakes, os)
		if i == seat {
			o.You = os
		}
	}
	return o
}

// AppendObservation appends seat's observation as one compact JSON object.
func (s *State) AppendObservation(dst []byte, seat int) []byte {
	b, err := json.Marshal(s.Observe(seat))
	if err != nil {
		panic(fmt.Sprintf("snake: observation: %v", err)) // plain data always marshals
	}
	return append(dst, b...)
}
