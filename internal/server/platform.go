package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/arenabots/arena/botcheck"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/matchmaker"
	"github.com/arenabots/arena/rating"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox"
)

// UploadWait is how long an upload request waits for its smoke match before
// answering that the check is still running.
var UploadWait = 90 * time.Second

// Upload checks a module, stores it as a new version of the account's bot
// (held to lim), and tries it in a smoke match against a house bot; only a
// version that gives a majority of ok answers there is activated. report,
// when not nil, is told each step as it happens (uploadsteps.go).
func (s *Server) Upload(ctx context.Context, acc store.Account, game, name string, wasm []byte, lim store.UploadLimits, report func(core.UploadStep)) (store.Bot, store.Version, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return store.Bot{}, store.Version{}, core.Errorf(http.StatusNotFound, "no game %q", game)
	}
	rt, err := sandbox.Default()
	if err != nil {
		return store.Bot{}, store.Version{}, err
	}
	steps := &uploadSteps{report: report}
	steps.tell(core.UploadStep{Stage: "compiling", Message: fmt.Sprintf("compiling the module (%d bytes) and checking its imports and limits", len(wasm))})
	// The account's compile: one at a time, on its daily budget, under the
	// upload's limit (sandbox/compilegate.go).
	if _, err := rt.CompileWith(ctx, wasm, sandbox.CompileOptions{Owner: fmt.Sprintf("account %d", acc.ID), Upload: true}); err != nil {
		if sandbox.IsRefused(err) {
			msg := fmt.Sprintf("the module is refused: %v", err)
			if h := botcheck.Hint(err); h != "" {
				msg += " (" + h + ")"
			}
			return store.Bot{}, store.Version{}, core.Errorf(http.StatusUnprocessableEntity, "%s", msg)
		}
		if errors.Is(err, sandbox.ErrCompileBudget) {
			return store.Bot{}, store.Version{}, core.Errorf(http.StatusTooManyRequests, "this account has spent its compile time for today (%v of CPU); modules compiled before upload at once, new ones tomorrow (UTC)", sandbox.DefaultCompileBudget)
		}
		if errors.Is(err, sandbox.ErrBusy) {
			return store.Bot{}, store.Version{}, core.Errorf(http.StatusServiceUnavailable, "the server is too busy to compile the module now; upload it again later")
		}
		return store.Bot{}, store.Version{}, err
	}
	steps.tell(core.UploadStep{Stage: "compiled", Message: "the module compiled and its imports and limits are within the sandbox's"})
	sum := sha256.Sum256(wasm)
	sha := hex.EncodeToString(sum[:])
	d := rating.Default()
	b, v, err := s.store.AddUpload(ctx, acc.ID, game, name, sha, wasm, d.Mu, d.Sigma, lim)
	if err != nil {
		return store.Bot{}, store.Version{}, err
	}
	house, err := s.smokeOpponent(ctx, game)
	if err != nil {
		return b, v, err
	}
	players := g.Info().Players[0]
	nm := store.NewMatch{Game: game, Seed: s.seed.Add(1) & (1<<63 - 1), Kind: store.KindSmoke,
		Seats: []store.SeatRef{{BotID: b.ID, VersionID: v.ID}}}
	for len(nm.Seats) < players {
		nm.Seats = append(nm.Seats, store.SeatRef{BotID: house.ID, VersionID: house.ActiveVersion})
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.waiters[v.ID] = append(s.waiters[v.ID], done)
	s.mu.Unlock()
	defer s.unwait(v.ID, done)
	id, err := s.store.CreateMatch(ctx, nm)
	if err != nil {
		return b, v, err
	}
	// Following the match before it is published: no turn is missed.
	turns, stop := steps.follow(s.live, id)
	defer stop()
	if err := s.store.SetSmokeMatch(ctx, v.ID, id); err != nil {
		return b, v, err
	}
	m, err := s.store.Match(ctx, id)
	if err != nil {
		return b, v, err
	}
	if err := s.publish(ctx, m); err != nil {
		return b, v, err
	}
	steps.tell(core.UploadStep{Stage: "smoke", Match: id, Opponent: "@" + core.HouseHandle + "/" + house.Name,
		Message: fmt.Sprintf("smoke match %d against @%s/%s made: waiting for a worker", id, core.HouseHandle, house.Name)})
	timeout := time.NewTimer(UploadWait)
	defer timeout.Stop()
wait:
	for {
		select {
		case <-done:
			steps.drain(turns)
			break wait
		case <-ctx.Done():
			break wait
		case <-timeout.C:
			break wait
		case t := <-turns:
			steps.turn(t)
		}
	}
	v, err = s.store.Version(context.WithoutCancel(ctx), v.ID)
	if err != nil {
		return b, v, err
	}
	b, err = s.store.Bot(context.WithoutCancel(ctx), b.ID)
	return b, v, err
}

func (s *Server) unwait(versionID int64, done chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.waiters[versionID]
	for i, w := range ws {
		if w == done {
			s.waiters[versionID] = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(s.waiters[versionID]) == 0 {
		delete(s.waiters, versionID)
	}
}

// smokeOpponent is the house bot an upload first meets: the game's first
// (simplest) house bot.
func (s *Server) smokeOpponent(ctx context.Context, game string) (store.Bot, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return store.Bot{}, err
	}
	hbs := g.HouseBots()
	if len(hbs) == 0 {
		return store.Bot{}, fmt.Errorf("%s has no house bot", game)
	}
	return s.store.BotByName(ctx, s.house.ID, game, hbs[0].Name)
}

// finishSmoke decides an upload once its smoke match has ended.
func (s *Server) finishSmoke(ctx context.Context, matchID int64) {
	v, err := s.store.VersionBySmokeMatch(ctx, matchID)
	if err != nil || v.State != store.VersionChecking {
		return
	}
	m, err := s.store.Match(ctx, matchID)
	if err != nil {
		s.log.Error("smoke match", "match", matchID, "err", err)
		return
	}
	accepted, msg := judgeSmoke(m)
	// The checker's advice on the usual mistakes (debug text on stdout,
	// answers that never come, the first failed answer quoted, a bot of
	// another game), read from the smoke match's replay: for an accepted
	// version too, which may still be doing nothing.
	if data, err := s.store.Replay(ctx, matchID); err == nil {
		if r, err := replay.Parse(data); err == nil {
			for i, h := range botcheck.ReplayHints(r, 0) {
				if accepted && i == 0 {
					msg += " Note:"
				}
				msg += " " + sentence(h)
			}
		}
	}
	b, err := s.store.Bot(ctx, v.BotID)
	if err != nil {
		s.log.Error("smoke match", "match", matchID, "err", err)
		return
	}
	sigma := rating.Rating{Mu: b.Mu, Sigma: b.Sigma}.NewVersion().Sigma
	if err := s.store.FinishCheck(ctx, v.ID, accepted, msg, matchID, sigma); err != nil {
		s.log.Error("smoke match", "match", matchID, "err", err)
		return
	}
	s.log.Info("upload checked", "bot", b.ID, "version", v.Number, "accepted", accepted)
	if !accepted {
		s.dropRefusedModule(ctx, v.SHA256)
	}
	s.mu.Lock()
	for _, w := range s.waiters[v.ID] {
		close(w)
	}
	delete(s.waiters, v.ID)
	s.mu.Unlock()
	s.wake()
}

// judgeSmoke accepts a version whose seat (seat 0) gave a majority of ok
// answers among those the game applied, and otherwise says why not.
func judgeSmoke(m store.Match) (bool, string) {
	if m.State == store.Failed {
		return false, fmt.Sprintf("refused: the smoke match (match %d) could not be run: %s", m.ID, m.Reason)
	}
	if len(m.Seats) == 0 {
		return false, "refused: the smoke match has no seats"
	}
	st := m.Seats[0].Statuses
	total := 0
	var parts []string
	for k, n := range st {
		if k == "ignored" {
			continue
		}
		total += n
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	ok := st["ok"]
	opp := "@" + m.Seats[len(m.Seats)-1].Handle + "/" + m.Seats[len(m.Seats)-1].BotName
	// The score tells a bot that answers ok yet does nothing (a kit of
	// another game whose answers this game reads as "no move") that it did.
	summary := fmt.Sprintf("%d of %d answers ok in the smoke match against %s (match %d; %s; score %d to %d)", ok, total, opp, m.ID, strings.Join(parts, ", "), m.Seats[0].Score, m.Seats[len(m.Seats)-1].Score)
	if total > 0 && 2*ok > total {
		return true, "accepted: " + summary
	}
	msg := "refused: only " + summary + "; a bot needs a majority of ok answers."
	// A bot is retired after too many failed answers (bot.Supervised):
	// its retired turns count with the failure it had most of before, so
	// a bot that crashes is not told it ran out of fuel.
	spent, crashed := st["fuel"]+st["timeout"], st["crash"]
	switch {
	case crashed > spent:
		crashed += st["retired"]
	case spent > 0:
		spent += st["retired"]
	}
	const crashHint = " It crashed (trap, exit or closed stdout): it must keep reading observations until stdin closes."
	switch {
	case spent*2 >= total && spent > 0:
		msg += " It ran out of fuel (or time) on most turns: it loops forever or thinks too long for its tank; answer each observation within its fuel (see the bot protocol)."
	case crashed*2 >= total && crashed > 0:
		msg += crashHint
	case st["malformed"] > 0:
		msg += " Malformed answers: each answer must be one JSON object on one line, in the game's action format."
	case st["illegal"] > 0:
		msg += " Illegal answers: read the observation and answer with a legal move."
	case crashed > 0:
		msg += crashHint
	}
	return false, msg
}

// maxChallengesPerWorker bounds the challenges queued or running, per
// worker (and as many again).
const maxChallengesPerWorker = 4

// dropRefusedModule deletes a refused version's module from the store
// unless another version that may play uses it: refused uploads of up to 32
// MiB each would otherwise fill the disk (a red team kept 93 MB for each).
// The smoke match's replay stays; its determinism is never checked
// (maybeCheck), since its module is gone.
func (s *Server) dropRefusedModule(ctx context.Context, sha string) {
	if _, err := s.store.DropRefusedModule(ctx, sha); err != nil {
		s.log.Warn("refused module not deleted", "sha256", sha, "err", err)
	}
}

// Challenge schedules an unrated match between active bots of a game.
func (s *Server) Challenge(ctx context.Context, game string, botIDs []int64, seed uint64) (int64, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return 0, core.Errorf(http.StatusNotFound, "no game %q", game)
	}
	// Challenges have their own share of the queue, so that rated matches
	// (fill) go on however many are asked for.
	waiting, err := s.store.CountLiveOfKind(ctx, store.KindChallenge)
	if err != nil {
		return 0, err
	}
	if waiting >= maxChallengesPerWorker*s.capacity()+maxChallengesPerWorker {
		return 0, core.Errorf(http.StatusServiceUnavailable, "the queue of challenges is full (%d queued or running); try again in a minute", waiting)
	}
	bots, err := s.store.ActiveBots(ctx, game)
	if err != nil {
		return 0, err
	}
	var active []matchmaker.Bot
	for _, b := range bots {
		active = append(active, matchmaker.Bot{ID: b.ID, Version: b.ActiveVersion, Rating: rating.Rating{Mu: b.Mu, Sigma: b.Sigma}, Order: b.ActiveVersion})
	}
	j, err := matchmaker.Challenge(g.Info().Players, active, botIDs, seed&(1<<63-1))
	if err != nil {
		return 0, core.Errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	nm := store.NewMatch{Game: game, Seed: j.Seed, Kind: store.KindChallenge}
	for _, seat := range j.Seats {
		nm.Seats = append(nm.Seats, store.SeatRef{BotID: seat.Bot, VersionID: seat.Version})
	}
	return s.schedule(ctx, nm)
}

// Live returns the turns of a running match so far (nil if this server did
// not keep them all) and calls fn with every later batch of them, each turn
// as JSON, until stop. fn must neither block nor change the batch.
func (s *Server) Live(matchID int64, fn func([][]byte)) (past [][]byte, stop func(), err error) {
	past, stop = s.live.subscribe(matchID, fn)
	return past, stop, nil
}

// sentence makes a hint, written to follow a colon, a sentence of its own.
func sentence(h string) string {
	if h == "" {
		return h
	}
	r, n := utf8.DecodeRuneInString(h)
	h = string(unicode.ToUpper(r)) + h[n:]
	if !strings.HasSuffix(h, ".") {
		h += "."
	}
	return h
}
