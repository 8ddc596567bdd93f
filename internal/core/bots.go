package core

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/rating"
)

// BotJSON is a bot as the API shows it.
type BotJSON struct {
	ID            int64         `json:"id"`
	Game          string        `json:"game"`
	Name          string        `json:"name"`
	Player        string        `json:"player"`
	House         bool          `json:"house"`
	Rating        int           `json:"rating"`
	Uncertainty   int           `json:"uncertainty"` // one sigma in rating units
	Mu            float64       `json:"mu"`
	Sigma         float64       `json:"sigma"`
	Matches       int64         `json:"matches"`
	Retired       bool          `json:"retired"`
	ActiveVersion int64         `json:"active_version,omitempty"`
	Versions      []VersionJSON `json:"versions,omitempty"`
	// Records are its results in rated matches by number of players
	// (GET /api/v1/bots/{id} only).
	Records []RecordJSON `json:"records,omitempty"`
	Created time.Time    `json:"created"`
}

// RecordJSON is a bot's results in rated matches of some number of
// players: a win is a first place alone, a draw a first place shared, a
// loss any other place.
type RecordJSON struct {
	Players int   `json:"players"`
	Wins    int64 `json:"wins"`
	Draws   int64 `json:"draws"`
	Losses  int64 `json:"losses"`
}

// VersionJSON is one upload. Message is the check's verdict, shown to the
// owner only.
type VersionJSON struct {
	ID         int64     `json:"id"`
	Number     int64     `json:"number"`
	SHA256     string    `json:"sha256,omitempty"`
	Size       int64     `json:"size"`
	State      string    `json:"state"`
	Message    string    `json:"message,omitempty"`
	SmokeMatch int64     `json:"smoke_match,omitempty"`
	Created    time.Time `json:"created"`
	// ModuleDeleted: the version was replaced more than a day ago and its
	// module is no longer kept.
	ModuleDeleted bool `json:"module_deleted,omitempty"`
}

func botJSON(b store.Bot) BotJSON {
	return BotJSON{ID: b.ID, Game: b.Game, Name: b.Name, Player: "@" + b.Handle, House: b.Spec != "",
		Rating: rating.Rating{Mu: b.Mu, Sigma: b.Sigma}.Display(), Uncertainty: uncertainty(b.Sigma), Mu: b.Mu, Sigma: b.Sigma, Matches: b.Matches,
		Retired: b.Retired, Created: b.CreatedAt.UTC()}
}

// botsJSON is a list of bots, without their active versions.
func botsJSON(bs []store.Bot) []BotJSON {
	out := make([]BotJSON, 0, len(bs))
	for _, b := range bs {
		out = append(out, botJSON(b))
	}
	return out
}

func versionJSON(v store.Version, owner bool) VersionJSON {
	j := VersionJSON{ID: v.ID, Number: v.Number, SHA256: v.SHA256, Size: v.Size, State: v.State, SmokeMatch: v.SmokeMatch, Created: v.CreatedAt.UTC(), ModuleDeleted: v.Pruned}
	if owner {
		j.Message = v.Message
	}
	return j
}

// PlayerJSON is a player and the bots the caller may see.
type PlayerJSON struct {
	Player string    `json:"player"`
	Joined time.Time `json:"joined"`
	Bots   []BotJSON `json:"bots"`
}

// Player is the player of handle (with or without its @): the owner sees
// all their bots, others the bots that have played.
func (c *Core) Player(ctx context.Context, who Caller, handle string) (PlayerJSON, error) {
	h := strings.TrimPrefix(handle, "@")
	if !HandlePattern.MatchString(h) {
		return PlayerJSON{}, Errorf(http.StatusNotFound, "no player %q", Truncate(h, 64))
	}
	acc, err := c.st.AccountByHandle(ctx, h)
	if errors.Is(err, store.ErrNotFound) {
		return PlayerJSON{}, Errorf(http.StatusNotFound, "no player @%s", h)
	}
	if err != nil {
		return PlayerJSON{}, err
	}
	bots, err := c.st.BotsOf(ctx, acc.ID)
	if err != nil {
		return PlayerJSON{}, err
	}
	if !who.owns(acc.ID) {
		// Others see the bots that have played: a bot none of whose
		// versions was ever accepted (a name tried once, a module refused)
		// is the owner's business, and it cannot be deleted.
		bots = slices.DeleteFunc(bots, func(b store.Bot) bool { return b.ActiveVersion == 0 })
	}
	return PlayerJSON{Player: "@" + acc.Handle, Joined: acc.CreatedAt.UTC(), Bots: botsJSON(bots)}, nil
}

// storeBot reads bot id, or refuses with 404.
func (c *Core) storeBot(ctx context.Context, id int64) (store.Bot, error) {
	b, err := c.st.Bot(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Bot{}, Errorf(http.StatusNotFound, "no bot %d", id)
	}
	return b, err
}

// Bot is bot id with its versions; the checker's messages for its owner
// only.
func (c *Core) Bot(ctx context.Context, who Caller, id int64) (BotJSON, error) {
	b, err := c.storeBot(ctx, id)
	if err != nil {
		return BotJSON{}, err
	}
	vs, err := c.st.Versions(ctx, b.ID)
	if err != nil {
		return BotJSON{}, err
	}
	j := botJSON(b)
	j.ActiveVersion = b.ActiveVersion
	j.Versions = []VersionJSON{}
	for _, v := range vs {
		j.Versions = append(j.Versions, versionJSON(v, who.owns(b.AccountID)))
	}
	recs, err := c.st.Records(ctx, b.ID)
	if err != nil {
		return BotJSON{}, err
	}
	for _, n := range slices.Sorted(maps.Keys(recs)) {
		r := recs[n]
		j.Records = append(j.Records, RecordJSON{Players: n, Wins: r.Wins, Draws: r.Draws, Losses: r.Losses})
	}
	return j, nil
}

// RatingPointJSON is a bot's rating after one rated match, and how much
// the match moved it (from the rating after the bot's match before, or
// from a newcomer's).
type RatingPointJSON struct {
	Match       int64     `json:"match"`
	Rating      int       `json:"rating"`
	Change      int       `json:"change"`
	Uncertainty int       `json:"uncertainty"`
	Mu          float64   `json:"mu"`
	Sigma       float64   `json:"sigma"`
	At          time.Time `json:"at"`
}

// RatingsJSON is a page of a bot's rating history, newest first.
type RatingsJSON struct {
	Bot    int64             `json:"bot"`
	Points []RatingPointJSON `json:"points"`
	Next   string            `json:"next,omitempty"`
}

// Ratings is bot id's rating history before match before (0: from the
// newest), at most limit points.
func (c *Core) Ratings(ctx context.Context, id, before int64, limit int) (RatingsJSON, error) {
	b, err := c.storeBot(ctx, id)
	if err != nil {
		return RatingsJSON{}, err
	}
	// One point more than the page: the rating before its oldest.
	pts, err := c.st.RatingHistory(ctx, b.ID, before, limit+1)
	if err != nil {
		return RatingsJSON{}, err
	}
	out := RatingsJSON{Bot: b.ID, Points: []RatingPointJSON{}}
	for i := range min(len(pts), limit) {
		p := &pts[i]
		var prev *store.HistoryPoint
		if i+1 < len(pts) {
			prev = &pts[i+1]
		}
		out.Points = append(out.Points, RatingPointJSON{Match: p.MatchID, Rating: rating.Rating{Mu: p.Mu, Sigma: p.Sigma}.Display(),
			Change: change(p, prev), Uncertainty: uncertainty(p.Sigma), Mu: p.Mu, Sigma: p.Sigma, At: p.At.UTC()})
	}
	if len(pts) > limit {
		out.Next = strconv.FormatInt(pts[limit-1].MatchID, 10)
	}
	return out, nil
}

// Retire takes the caller's bot id off the ladder.
func (c *Core) Retire(ctx context.Context, who Caller, id int64) (BotJSON, error) {
	if !who.LoggedIn() {
		return BotJSON{}, ErrLogIn
	}
	b, err := c.storeBot(ctx, id)
	if err != nil {
		return BotJSON{}, err
	}
	if !who.owns(b.AccountID) {
		return BotJSON{}, Errorf(http.StatusForbidden, "bot %d is not yours", b.ID)
	}
	if err := c.st.Retire(ctx, b.ID); err != nil {
		return BotJSON{}, err
	}
	b.Retired = true
	return botJSON(b), nil
}
