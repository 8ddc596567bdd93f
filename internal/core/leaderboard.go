package core

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/rating"
)

// LeaderRowJSON is one leaderboard line, as the seeds' tables show it, with
// the bot's record and the change of its rating in its last rated match.
type LeaderRowJSON struct {
	Rank    int64   `json:"rank"`
	Player  string  `json:"player"`
	Bot     string  `json:"bot"`
	BotID   int64   `json:"bot_id"`
	Rating  int     `json:"rating"`
	Matches int64   `json:"matches"`
	Mu      float64 `json:"mu"`
	Sigma   float64 `json:"sigma"`
	// Uncertainty is one standard deviation of the rating, in the
	// rating's displayed units (rating.DisplayScale × sigma).
	Uncertainty int   `json:"uncertainty"`
	Wins        int64 `json:"wins"`
	Draws       int64 `json:"draws"`
	Losses      int64 `json:"losses"`
	// LastChange is how much the displayed rating moved in the bot's last
	// rated match (from its rating after the match before, or from a
	// newcomer's); absent before its first. LastMatch is that match.
	LastChange *int      `json:"last_change,omitempty"`
	LastMatch  int64     `json:"last_match,omitempty"`
	LastPlayed time.Time `json:"last_played,omitzero"`
}

// LeaderboardJSON is a page of a game's leaderboard, best first.
type LeaderboardJSON struct {
	Game string          `json:"game"`
	Rows []LeaderRowJSON `json:"rows"`
	Next string          `json:"next,omitempty"`
}

// LeaderQuery is what a leaderboard is asked for: its filters and page.
type LeaderQuery struct {
	Filter store.LeaderFilter
	After  *store.Cursor
	Limit  int
}

// ActiveDays is how recent a bot's last rated match must be for the
// leaderboard's "active only".
const ActiveDays = 7

// ParseLeaderQuery reads a leaderboard's query: players (a number of
// players the game is played by), active (1: bots with a rated match in the
// last ActiveDays days), q (a bot's name or a player's handle, or part of
// one, at most store.MaxSearch bytes), after and limit.
func (c *Core) ParseLeaderQuery(game string, q url.Values) (LeaderQuery, error) {
	var lq LeaderQuery
	g, err := c.LookupGame(game)
	if err != nil {
		return lq, err
	}
	if p := q.Get("players"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || !slices.Contains(g.Info().Players, n) {
			return lq, Errorf(http.StatusBadRequest, "players: one of %v for %s", g.Info().Players, g.Info().Name)
		}
		lq.Filter.Players = n
	}
	switch q.Get("active") {
	case "", "0":
	case "1":
		lq.Filter.ActiveSince = time.Now().Add(-ActiveDays * 24 * time.Hour).Truncate(time.Minute)
	default:
		return lq, Errorf(http.StatusBadRequest, "active: 1 for the bots that played in the last %d days, or 0", ActiveDays)
	}
	search := strings.TrimPrefix(strings.TrimSpace(q.Get("q")), "@")
	if len(search) > store.MaxSearch || !utf8.ValidString(search) {
		return lq, Errorf(http.StatusBadRequest, "q: at most %d bytes of a bot's name or a player's handle", store.MaxSearch)
	}
	lq.Filter.Search = search
	if lq.After, err = ParseLeaderCursor(q.Get("after")); err != nil {
		return lq, err
	}
	lq.Limit, err = ParseLimit(q.Get("limit"))
	return lq, err
}

// ParseLeaderCursor reads a leaderboard page cursor: "SCOREBITS.ID.RANK",
// the score's IEEE bits in hex.
func ParseLeaderCursor(s string) (*store.Cursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := Errorf(http.StatusBadRequest, "after: not a cursor from this API")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, bad
	}
	bits, err1 := strconv.ParseUint(parts[0], 16, 64)
	id, err2 := strconv.ParseInt(parts[1], 10, 64)
	rank, err3 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || id < 0 || rank < 0 {
		return nil, bad
	}
	score := math.Float64frombits(bits)
	if score != score || score > 1e300 || score < -1e300 {
		return nil, bad
	}
	return &store.Cursor{Score: score, ID: id, Rank: rank}, nil
}

func leaderCursor(r store.LeaderRow) string {
	return fmt.Sprintf("%x.%d.%d", math.Float64bits(r.Bot.Score), r.Bot.ID, r.Rank)
}

// LeaderboardPage is a page of game's leaderboard, encoded and cached until
// the game's lists change.
func (c *Core) LeaderboardPage(ctx context.Context, gameID string, lq LeaderQuery) (Page, error) {
	g, err := c.LookupGame(gameID)
	if err != nil {
		return Page{}, err
	}
	if lq.Limit < 1 || lq.Limit > PageMax {
		lq.Limit = PageDefault
	}
	id := g.Info().ID
	f := lq.Filter
	key := fmt.Sprintf("leaderboard %s %s %d %d %d %q", id, curKey(lq.After), lq.Limit, f.Players, f.ActiveSince.Unix(), f.Search)
	return c.cachedPage(ctx, id, key, func(ctx context.Context) (any, error) {
		return c.Leaderboard(ctx, id, lq)
	})
}

func curKey(cur *store.Cursor) string {
	if cur == nil {
		return "-"
	}
	return leaderCursor(store.LeaderRow{Rank: cur.Rank, Bot: store.Bot{ID: cur.ID, Score: cur.Score}})
}

// Leaderboard is a page of game's leaderboard, read from the store.
func (c *Core) Leaderboard(ctx context.Context, game string, lq LeaderQuery) (LeaderboardJSON, error) {
	lines, err := c.st.LeaderboardOf(ctx, game, lq.Filter, lq.After, lq.Limit)
	if err != nil {
		return LeaderboardJSON{}, err
	}
	out := LeaderboardJSON{Game: game, Rows: []LeaderRowJSON{}}
	for _, l := range lines {
		b := l.Bot
		rt := rating.Rating{Mu: b.Mu, Sigma: b.Sigma}
		row := LeaderRowJSON{Rank: l.Rank, Player: "@" + b.Handle, Bot: b.Name, BotID: b.ID,
			Rating: rt.Display(), Matches: b.Matches, Mu: b.Mu, Sigma: b.Sigma, Uncertainty: uncertainty(b.Sigma),
			Wins: l.Record.Wins, Draws: l.Record.Draws, Losses: l.Record.Losses}
		if lq.Filter.Players > 0 {
			row.Matches = l.Record.Wins + l.Record.Draws + l.Record.Losses
		}
		if l.Last != nil {
			ch := change(l.Last, l.Previous)
			row.LastChange, row.LastMatch, row.LastPlayed = &ch, l.Last.MatchID, l.Last.At.UTC()
		}
		out.Rows = append(out.Rows, row)
	}
	if len(lines) == lq.Limit {
		out.Next = leaderCursor(lines[len(lines)-1].LeaderRow)
	}
	return out, nil
}

// uncertainty is one standard deviation sigma in displayed rating units.
func uncertainty(sigma float64) int {
	return int(math.Round(rating.DisplayScale * sigma))
}

// change is how much the displayed rating moved from prev (nil: a
// newcomer's rating) to p.
func change(p, prev *store.HistoryPoint) int {
	before := rating.Default()
	if prev != nil {
		before = rating.Rating{Mu: prev.Mu, Sigma: prev.Sigma}
	}
	return rating.Rating{Mu: p.Mu, Sigma: p.Sigma}.Display() - before.Display()
}
