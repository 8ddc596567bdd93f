package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ChallengeRequest asks for an unrated match.
type ChallengeRequest struct {
	Game string    `json:"game"`
	Bots []int64   `json:"bots"`
	Seed *SeedJSON `json:"seed"`
}

// MaxSeed is the largest match seed: the store keeps seeds as signed 64-bit
// integers.
const MaxSeed = 1<<63 - 1

// SeedJSON is a match seed as a request gives it: a decimal string, as the
// API writes seeds (JavaScript's numbers lose digits past 2^53), or a JSON
// number; 0 to MaxSeed either way, never silently changed.
type SeedJSON uint64

// UnmarshalJSON reads a seed from a string or a number.
func (s *SeedJSON) UnmarshalJSON(b []byte) error {
	text := string(b)
	var err error
	if len(b) > 0 && b[0] == '"' {
		err = json.Unmarshal(b, &text)
	}
	n, perr := strconv.ParseUint(text, 10, 64)
	if err != nil || perr != nil || n > MaxSeed {
		return fmt.Errorf("seed: a whole number from 0 to %d, as a string or a number", uint64(MaxSeed))
	}
	*s = SeedJSON(n)
	return nil
}

// DecodeChallenge reads a challenge body.
func DecodeChallenge(body []byte) (ChallengeRequest, error) {
	var c ChallengeRequest
	if err := DecodeStrict(body, &c); err != nil {
		return c, err
	}
	return c, CheckChallenge(c)
}

// CheckChallenge says what is wrong with a challenge, if anything.
func CheckChallenge(c ChallengeRequest) error {
	if c.Game == "" {
		return Errorf(http.StatusBadRequest, "game: required")
	}
	if len(c.Bots) < 2 || len(c.Bots) > 8 {
		return Errorf(http.StatusBadRequest, "bots: 2 to 8 bot ids, in seat order")
	}
	return nil
}

// Challenge schedules the caller's unrated match and tells its id.
func (c *Core) Challenge(ctx context.Context, who Caller, req ChallengeRequest) (int64, error) {
	if !who.LoggedIn() {
		return 0, ErrLogIn
	}
	if err := CheckChallenge(req); err != nil {
		return 0, err
	}
	g, err := c.LookupGame(req.Game)
	if err != nil {
		return 0, err
	}
	seed := uint64(time.Now().UnixNano())
	if req.Seed != nil {
		seed = uint64(*req.Seed)
	}
	if !c.challenges.Allow("account " + who.Account.Handle) {
		return 0, Errorf(http.StatusTooManyRequests, "too many challenges from this account in the last minute; wait a minute")
	}
	id, err := c.p.Challenge(ctx, g.Info().ID, req.Bots, seed)
	if err != nil {
		return 0, err
	}
	c.log.Info("challenge", "by", who.Account.Handle, "match", id)
	return id, nil
}
