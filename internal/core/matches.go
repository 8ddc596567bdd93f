package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/arenabots/arena/internal/store"
)

// MatchJSON is a match as the API shows it.
type MatchJSON struct {
	ID       int64             `json:"id"`
	Game     string            `json:"game"`
	Params   map[string]string `json:"params"`
	Seed     string            `json:"seed"` // a string: JSON numbers lose 64-bit precision
	Kind     string            `json:"kind"`
	State    string            `json:"state"`
	Reason   string            `json:"reason,omitempty"`
	Turns    int64             `json:"turns"`
	Created  time.Time         `json:"created"`
	Finished *time.Time        `json:"finished,omitempty"`
	Seats    []SeatJSON        `json:"seats"`
	Replay   json.RawMessage   `json:"replay,omitempty"`

	// Determinism is "checked" or "mismatch" for a match run a second time
	// and compared (docs/deploy.md); absent for the others.
	Determinism string `json:"determinism,omitempty"`
}

// Live says whether the match is still to be played or being played.
func (m *MatchJSON) Live() bool { return m.State == store.Queued || m.State == store.Running }

// Names are the seats' names as the site shows them: @player/bot.
func (m *MatchJSON) Names() []string {
	out := make([]string, len(m.Seats))
	for i, st := range m.Seats {
		out[i] = st.Player + "/" + st.Bot
	}
	return out
}

// SeatJSON is one seat of a match.
type SeatJSON struct {
	Seat     int            `json:"seat"`
	BotID    int64          `json:"bot_id"`
	Player   string         `json:"player"`
	Bot      string         `json:"bot"`
	Version  int64          `json:"version_id,omitempty"`
	Score    int64          `json:"score"`
	Place    int            `json:"place,omitempty"`
	Statuses map[string]int `json:"statuses,omitempty"`
	Fuel     int64          `json:"fuel,omitempty"`
}

func matchJSON(m store.Match) MatchJSON {
	j := MatchJSON{ID: m.ID, Game: m.Game, Params: m.Params, Seed: strconv.FormatUint(m.Seed, 10), Kind: m.Kind, State: m.State,
		Reason: m.Reason, Turns: m.Turns, Determinism: m.Determinism, Created: m.CreatedAt.UTC(), Seats: []SeatJSON{}}
	if j.Params == nil {
		j.Params = map[string]string{}
	}
	if !m.FinishedAt.IsZero() {
		t := m.FinishedAt.UTC()
		j.Finished = &t
	}
	for _, s := range m.Seats {
		j.Seats = append(j.Seats, SeatJSON{Seat: s.Seat, BotID: s.BotID, Player: "@" + s.Handle, Bot: s.BotName, Version: s.VersionID,
			Score: s.Score, Place: s.Place, Statuses: s.Statuses, Fuel: s.Fuel})
	}
	return j
}

// MatchListJSON is a page of matches, newest first.
type MatchListJSON struct {
	Matches []MatchJSON `json:"matches"`
	Next    string      `json:"next,omitempty"`
}

// ParseMatchFilter reads a match list's query.
func (c *Core) ParseMatchFilter(q url.Values) (store.MatchFilter, error) {
	var f store.MatchFilter
	var err error
	if g := q.Get("game"); g != "" {
		gm, err := c.LookupGame(g)
		if err != nil {
			return f, err
		}
		f.Game = gm.Info().ID
	}
	if b := q.Get("bot"); b != "" {
		if f.BotID, err = ParseID("bot", b); err != nil {
			return f, err
		}
	}
	switch q.Get("state") {
	case "", "finished":
	case "live":
		f.Live = true
	default:
		return f, Errorf(http.StatusBadRequest, "state: live or finished")
	}
	if b := q.Get("before"); b != "" {
		if f.Before, err = ParseID("before", b); err != nil {
			return f, err
		}
	}
	f.Limit, err = ParseLimit(q.Get("limit"))
	return f, err
}

// MatchesPage is a page of the matches f selects, encoded and cached until
// their game's lists change.
func (c *Core) MatchesPage(ctx context.Context, f store.MatchFilter) (Page, error) {
	if f.Limit < 1 || f.Limit > PageMax {
		f.Limit = PageDefault
	}
	// A list of one game's matches, or of one bot's (a bot plays one
	// game), changes only with that game; without either it spans them all.
	scope := f.Game
	if scope == "" && f.BotID != 0 {
		scope = c.botGame.of(ctx, c.st, f.BotID)
	}
	key := fmt.Sprintf("matches %q %d %v %d %d", f.Game, f.BotID, f.Live, f.Before, f.Limit)
	return c.cachedPage(ctx, scope, key, func(ctx context.Context) (any, error) {
		return c.matches(ctx, f)
	})
}

func (c *Core) matches(ctx context.Context, f store.MatchFilter) (MatchListJSON, error) {
	ms, err := c.st.Matches(ctx, f)
	if err != nil {
		return MatchListJSON{}, err
	}
	out := MatchListJSON{Matches: []MatchJSON{}}
	for _, m := range ms {
		out.Matches = append(out.Matches, matchJSON(m))
	}
	if len(ms) == f.Limit {
		out.Next = strconv.FormatInt(ms[len(ms)-1].ID, 10)
	}
	return out, nil
}

func (c *Core) storeMatch(ctx context.Context, id int64) (store.Match, error) {
	m, err := c.st.Match(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Match{}, Errorf(http.StatusNotFound, "no match %d", id)
	}
	return m, err
}

// Match is match id, with its replay when it has one and withReplay.
func (c *Core) Match(ctx context.Context, id int64, withReplay bool) (MatchJSON, error) {
	m, err := c.storeMatch(ctx, id)
	if err != nil {
		return MatchJSON{}, err
	}
	j := matchJSON(m)
	if withReplay {
		rep, err := c.st.Replay(ctx, m.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return MatchJSON{}, err
		}
		if len(rep) > 0 {
			j.Replay = rep
		}
	}
	return j, nil
}

// Replay is the replay file of match id, refused with 404 until it ends.
func (c *Core) Replay(ctx context.Context, id int64) ([]byte, error) {
	m, err := c.storeMatch(ctx, id)
	if err != nil {
		return nil, err
	}
	rep, err := c.st.Replay(ctx, m.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, Errorf(http.StatusNotFound, "match %d has no replay (it is %s)", m.ID, m.State)
	}
	return rep, err
}

// SeatLogJSON is what one seat's bot wrote to stderr in a match.
type SeatLogJSON struct {
	Match  int64  `json:"match"`
	Seat   int    `json:"seat"`
	BotID  int64  `json:"bot_id"`
	Stderr string `json:"stderr"`
}

// SeatLog is the log of seat (as the path gives it) of match id, for the
// owner of its bot only.
func (c *Core) SeatLog(ctx context.Context, who Caller, id int64, seatText string) (SeatLogJSON, error) {
	if !who.LoggedIn() {
		return SeatLogJSON{}, ErrLogIn
	}
	m, err := c.storeMatch(ctx, id)
	if err != nil {
		return SeatLogJSON{}, err
	}
	seat, err := strconv.Atoi(seatText)
	if err != nil || seat < 0 || seat >= len(m.Seats) {
		return SeatLogJSON{}, Errorf(http.StatusNotFound, "match %d has no seat %q", m.ID, Truncate(seatText, 16))
	}
	b, err := c.st.Bot(ctx, m.Seats[seat].BotID)
	if err != nil {
		return SeatLogJSON{}, err
	}
	if !who.owns(b.AccountID) {
		return SeatLogJSON{}, Errorf(http.StatusForbidden, "a bot's log is for its owner only")
	}
	s, err := c.st.SeatLog(ctx, m.ID, seat)
	if err != nil {
		return SeatLogJSON{}, err
	}
	return SeatLogJSON{Match: m.ID, Seat: seat, BotID: b.ID, Stderr: string(s.Stderr)}, nil
}
