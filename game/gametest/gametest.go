// Package gametest is the contract every game on the platform passes: one
// conformance check, in the spirit of OpenSpiel's random simulation test and
// testing/fstest.TestFS. A game's own tests call Run, and so does one test
// over every registered game (package games), so adding a game means one
// package, one line in the registry, and passing Run.
//
// Run plays random matches from many seeds, mixing legal answers, broken
// ones and missing ones, and checks at every turn: determinism (a twin
// state given the same answers stays identical), clone independence, that
// every observation is compact JSON that the protocol's strict decoder
// reads into the game's typed observation and that re-encodes to the same
// bytes, that every legal answer listed applies with status ok and its
// canonical action, that every illegal or malformed answer gets from Apply
// the very verdict Validate gives, that re-applying the recorded actions
// alone reproduces the match (what replay verify relies on), the turn
// counter and limit, scores, and the end: nobody asked, Apply a no-op, a
// placement that orders the seats by score.
package gametest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// State is what a game's state offers the suite beside game.State.
type State interface {
	game.State
	// Clone returns an independent copy.
	Clone() game.State
	// Validate is the verdict Apply would give seat's answer now (alone,
	// the other seats answering nothing), without changing the state.
	Validate(seat int, answer []byte) game.Verdict
	// LegalAnswers lists legal answers of seat in canonical form (the form
	// the verdict's Action takes): all of them, or for a game whose answers
	// combine (Grid Royale's batches) every elementary one.
	LegalAnswers(seat int) [][]byte
	// NewObservation returns a pointer to the game's typed observation.
	NewObservation() any
}

// Options tune a run; the zero value is a full check.
type Options struct {
	Seeds    int         // matches per player count; default 10
	Params   game.Params // parameters of every match (e.g. a small board)
	MaxTurns int         // a match longer than this fails; default 5000
	Checks   int         // legal and broken answers tried per asked seat and turn; default 4 each
}

// Run checks g against the contract, for every player count it allows.
func Run(t *testing.T, g game.Game, opts Options) {
	t.Helper()
	for _, n := range g.Info().Players {
		t.Run(fmt.Sprintf("%s/players=%d", g.Info().ID, n), func(t *testing.T) {
			if err := Check(g, n, opts); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Check is Run for one player count, returning the first broken rule.
func Check(g game.Game, players int, opts Options) error {
	if opts.Seeds <= 0 {
		opts.Seeds = 10
	}
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = 5000
	}
	if opts.Checks <= 0 {
		opts.Checks = 4
	}
	info := g.Info()
	if info.ID == "" || !info.AllowsPlayers(players) {
		return fmt.Errorf("Info %+v: want an id and %d among the player counts", info, players)
	}
	for seed := uint64(1); seed <= uint64(opts.Seeds); seed++ {
		c := checker{g: g, opts: opts, cfg: game.Config{Seed: seed, Players: players, Params: opts.Params}}
		if err := c.match(); err != nil {
			return fmt.Errorf("seed %d, %d players: %w", seed, players, err)
		}
	}
	return nil
}

type checker struct {
	g    game.Game
	opts Options
	cfg  game.Config
	src  *rng.Source
}

func (c *checker) start(cfg game.Config) (State, error) {
	st, err := c.g.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("New: %w", err)
	}
	s, ok := st.(State)
	if !ok {
		return nil, fmt.Errorf("%T lacks Clone, Validate, LegalAnswers or NewObservation (gametest.State)", st)
	}
	return s, nil
}

// match plays one random match with every check.
func (c *checker) match() error {
	c.src = rng.New(rng.Mix(c.cfg.Seed, uint64(c.cfg.Players), 0x67616d6574657374))
	st, err := c.start(c.cfg)
	if err != nil {
		return err
	}
	twin, err := c.start(c.cfg)
	if err != nil {
		return err
	}
	// Params name the whole configuration: a replay starts from them.
	again, err := c.start(game.Config{Seed: c.cfg.Seed, Players: c.cfg.Players, Params: st.Params()})
	if err != nil {
		return fmt.Errorf("from its own Params %v: %w", st.Params(), err)
	}
	if st.Hash() != twin.Hash() || st.Hash() != again.Hash() {
		return fmt.Errorf("three starts from one configuration differ")
	}
	if st.Players() != c.cfg.Players || st.Turn() != 0 || st.Done() {
		return fmt.Errorf("a new match has %d players, turn %d, done %v", st.Players(), st.Turn(), st.Done())
	}
	limit := c.opts.MaxTurns
	if m, ok := st.Params()["max_turns"]; ok {
		if v, err := strconv.Atoi(m); err == nil && v < limit {
			limit = v
		}
	}
	replayed := again // applies only the verdicts' actions
	for !st.Done() {
		if st.Turn() >= limit {
			return fmt.Errorf("turn %d and not over (limit %d)", st.Turn(), limit)
		}
		if err := c.turn(st, twin, replayed); err != nil {
			return fmt.Errorf("turn %d: %w", st.Turn()+1, err)
		}
	}
	return c.end(st)
}

// turn checks one position, then plays a random turn on st and twin.
func (c *checker) turn(st, twin, replayed State) error {
	n := st.Players()
	asked := st.Asked()
	if len(asked) == 0 {
		return fmt.Errorf("nobody is asked and the match is not over")
	}
	for i, seat := range asked {
		if seat < 0 || seat >= n || (i > 0 && seat <= asked[i-1]) {
			return fmt.Errorf("Asked %v: want seats in increasing order", asked)
		}
	}
	asked = slices.Clone(asked) // a game may reuse the slice
	before := st.Hash()
	for _, seat := range asked {
		if err := c.observation(st, twin, seat); err != nil {
			return fmt.Errorf("seat %d's observation: %w", seat, err)
		}
		if err := c.answers(st, seat); err != nil {
			return fmt.Errorf("seat %d: %w", seat, err)
		}
	}
	if st.Hash() != before {
		return fmt.Errorf("observing, validating or cloning changed the state")
	}
	answers := make([][]byte, n)
	for _, seat := range asked {
		answers[seat] = c.pick(st, seat)
	}
	clone := st.Clone()
	turn := st.Turn()
	verdicts := st.Apply(answers)
	if st.Turn() != turn+1 {
		return fmt.Errorf("Apply moved the turn from %d to %d", turn, st.Turn())
	}
	if clone.Hash() != before {
		return fmt.Errorf("applying a turn to the state changed its clone")
	}
	if err := sameVerdicts(verdicts, twin.Apply(answers)); err != nil {
		return fmt.Errorf("determinism: the twin state: %w", err)
	}
	if err := sameVerdicts(verdicts, clone.Apply(answers)); err != nil {
		return fmt.Errorf("the clone: %w", err)
	}
	if twin.Hash() != st.Hash() || clone.Hash() != st.Hash() {
		return fmt.Errorf("the same answers left the twin or the clone in another state")
	}
	if len(verdicts) != n {
		return fmt.Errorf("%d verdicts for %d seats", len(verdicts), n)
	}
	actions := make([][]byte, n)
	for seat, v := range verdicts {
		wasAsked := slices.Contains(asked, seat)
		switch {
		case !wasAsked && v.Status != "" && v.Status != game.Ignored:
			return fmt.Errorf("seat %d was not asked and got %s", seat, v.Status)
		case answers[seat] == nil && v.Status != "":
			return fmt.Errorf("seat %d gave no answer and got %s; want an empty status", seat, v.Status)
		case answers[seat] != nil && wasAsked && !slices.Contains([]game.Status{game.OK, game.Illegal, game.Malformed, game.Ignored}, v.Status):
			return fmt.Errorf("seat %d's answer got %q", seat, v.Status)
		}
		if v.Action != nil {
			if err := canonical(v.Action); err != nil {
				return fmt.Errorf("seat %d's action: %w", seat, err)
			}
			actions[seat] = v.Action
		}
	}
	// A replay's actions alone reproduce the match.
	for seat, v := range replayed.Apply(actions) {
		if !bytes.Equal(v.Action, verdicts[seat].Action) {
			return fmt.Errorf("re-applying seat %d's action %s applied %s", seat, verdicts[seat].Action, v.Action)
		}
	}
	if replayed.Hash() != st.Hash() {
		return fmt.Errorf("re-applying the recorded actions reached another state")
	}
	if len(st.Scores()) != n {
		return fmt.Errorf("%d scores for %d seats", len(st.Scores()), n)
	}
	return nil
}

// observation checks seat's observation: deterministic, compact JSON, read
// by the strict decoder into the typed observation, and the same bytes when
// that is encoded again.
func (c *checker) observation(st, twin State, seat int) error {
	obs := st.AppendObservation(nil, seat)
	if !bytes.Equal(obs, twin.AppendObservation(nil, seat)) {
		return fmt.Errorf("twin states observe differently")
	}
	if err := canonical(obs); err != nil {
		return err
	}
	if obs[0] != '{' {
		return fmt.Errorf("not an object: %.40s", obs)
	}
	typed := st.NewObservation()
	if err := game.Decode(obs, typed); err != nil {
		return fmt.Errorf("the strict decoder refuses it: %w", err)
	}
	back, err := json.Marshal(typed)
	if err != nil {
		return err
	}
	if !bytes.Equal(back, obs) {
		return fmt.Errorf("does not round-trip through the typed observation:\n%s\n%s", obs, back)
	}
	if withFuel := game.AddField(obs, "fuel", []byte(`{"left":1}`)); !json.Valid(withFuel) {
		return fmt.Errorf("the platform's fuel field cannot be added")
	}
	return nil
}

// answers checks a sample of seat's legal answers and of broken ones:
// Validate and Apply (on a clone) give the same verdict, and a legal one
// applies as its canonical self.
func (c *checker) answers(st State, seat int) error {
	legal := st.LegalAnswers(seat)
	for _, a := range c.sample(legal) {
		v := st.Validate(seat, a)
		if v.Status != game.OK || !bytes.Equal(v.Action, a) {
			return fmt.Errorf("legal answer %s: Validate gives %s %s (%s)", a, v.Status, v.Action, v.Reason)
		}
		if err := c.applyAlone(st, seat, a, v); err != nil {
			return err
		}
	}
	var broken [][]byte
	for i := 0; i < c.opts.Checks; i++ {
		broken = append(broken, c.broken(legal))
	}
	for _, a := range broken {
		v := st.Validate(seat, a)
		if v.Status == "" {
			return fmt.Errorf("answer %q: Validate gives no status", clip(a))
		}
		if err := c.applyAlone(st, seat, a, v); err != nil {
			return err
		}
	}
	return nil
}

// applyAlone applies answer a of seat alone on a clone of st and compares
// the verdict with want.
func (c *checker) applyAlone(st State, seat int, a []byte, want game.Verdict) error {
	answers := make([][]byte, st.Players())
	answers[seat] = a
	h := st.Hash()
	got := st.Clone().Apply(answers)[seat]
	if st.Hash() != h {
		return fmt.Errorf("applying answer %q to a clone changed the state it was cloned from", clip(a))
	}
	if got.Status == "" {
		got.Status = game.OK // as the runner records it
	}
	if got.Status != want.Status || got.Reason != want.Reason || !bytes.Equal(got.Action, want.Action) {
		return fmt.Errorf("answer %q: Apply gives %s %s (%s), Validate %s %s (%s)",
			clip(a), got.Status, got.Action, got.Reason, want.Status, want.Action, want.Reason)
	}
	return nil
}

func (c *checker) sample(list [][]byte) [][]byte {
	if len(list) <= c.opts.Checks {
		return list
	}
	out := make([][]byte, c.opts.Checks)
	for i := range out {
		out[i] = list[c.src.Intn(len(list))]
	}
	return out
}

// hostile are answers no game takes as they are.
var hostile = [][]byte{
	{}, []byte("null"), []byte("{}"), []byte("[]"), []byte(`"x"`), []byte("0"), []byte("\xff\xfe"),
	[]byte(`{"a":`), []byte(strings.Repeat("[", 20000)), []byte(`{"x":1,"x":2}`), []byte(" \t\r"),
}

// broken returns a hostile answer or a legal one damaged.
func (c *checker) broken(legal [][]byte) []byte {
	if len(legal) == 0 || c.src.Intn(3) == 0 {
		return hostile[c.src.Intn(len(hostile))]
	}
	a := slices.Clone(legal[c.src.Intn(len(legal))])
	switch c.src.Intn(6) {
	case 0: // a byte changed
		a[c.src.Intn(len(a))] = byte(c.src.Intn(256))
	case 1: // cut short
		a = a[:c.src.Intn(len(a))]
	case 2: // a field name's first letter in upper case
		if i := bytes.IndexByte(a, '"'); i >= 0 && i+1 < len(a) && a[i+1] >= 'a' && a[i+1] <= 'z' {
			a[i+1] -= 'a' - 'A'
		}
	case 3: // a value replaced by null
		if i := bytes.IndexByte(a, ':'); i >= 0 {
			end := i + 1
			for end < len(a) && a[end] != ',' && a[end] != '}' && a[end] != '[' && a[end] != '{' {
				end++
			}
			a = slices.Concat(a[:i+1], []byte("null"), a[end:])
		}
	case 4: // text after the object
		a = append(a, " x"...)
	default: // a digit changed, often to an illegal value
		for i := range a {
			if a[i] >= '0' && a[i] <= '9' {
				a[i] = byte('0' + c.src.Intn(10))
				break
			}
		}
	}
	return a
}

// pick chooses one answer for a turn: mostly legal, sometimes broken or
// missing (a bot failure).
func (c *checker) pick(st State, seat int) []byte {
	switch r := c.src.Intn(20); {
	case r < 2:
		return nil
	case r < 5:
		return c.broken(st.LegalAnswers(seat))
	}
	legal := st.LegalAnswers(seat)
	if len(legal) == 0 {
		return c.broken(nil)
	}
	return legal[c.src.Intn(len(legal))]
}

// end checks a finished match.
func (c *checker) end(st State) error {
	if len(st.Asked()) != 0 {
		return fmt.Errorf("over, yet Asked is %v", st.Asked())
	}
	h, turn := st.Hash(), st.Turn()
	answers := make([][]byte, st.Players())
	for i := range answers {
		answers[i] = []byte(`{}`)
	}
	for seat, v := range st.Apply(answers) {
		if v.Action != nil {
			return fmt.Errorf("over, yet Apply applied %s for seat %d", v.Action, seat)
		}
	}
	if st.Hash() != h || st.Turn() != turn {
		return fmt.Errorf("Apply changed a finished match")
	}
	p := st.Placement()
	sorted := slices.Sorted(slices.Values(p))
	for i, seat := range sorted {
		if seat != i {
			return fmt.Errorf("placement %v is not an order of the %d seats", p, st.Players())
		}
	}
	scores := st.Scores()
	for i := 1; i < len(p); i++ {
		if scores[p[i]] > scores[p[i-1]] {
			return fmt.Errorf("placement %v puts a higher score after a lower one (%v)", p, scores)
		}
	}
	return nil
}

func sameVerdicts(a, b []game.Verdict) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d verdicts, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Status != b[i].Status || a[i].Reason != b[i].Reason || !bytes.Equal(a[i].Action, b[i].Action) {
			return fmt.Errorf("seat %d: %+v, then %+v", i, a[i], b[i])
		}
	}
	return nil
}

// canonical checks that raw is valid, compact JSON.
func canonical(raw []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return fmt.Errorf("not JSON: %w: %.60s", err, raw)
	}
	if !bytes.Equal(buf.Bytes(), raw) {
		return fmt.Errorf("not compact JSON: %.60s", raw)
	}
	return nil
}

func clip(b []byte) []byte {
	if len(b) > 60 {
		return b[:60]
	}
	return b
}
