package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Match kinds.
const (
	KindRated     = "rated"     // scheduled by the matchmaker; changes ratings
	KindChallenge = "challenge" // asked for by a user; unrated
	KindSmoke     = "smoke"     // an upload's trial against a house bot; unrated
)

// Match states.
const (
	Queued    = "queued"
	Running   = "running"
	Finished  = "finished"
	Failed    = "failed"    // the platform could not run it (reason says why); unrated
	Discarded = "discarded" // a bot changed version meanwhile; kept, unrated
)

// SeatRef names the bot (and its version) that plays a seat.
type SeatRef struct {
	BotID     int64
	VersionID int64
}

// NewMatch is a match to schedule.
type NewMatch struct {
	Game   string
	Params map[string]string
	Seed   uint64
	Kind   string
	Seats  []SeatRef
}

// Match is a scheduled, running or finished match.
type Match struct {
	ID         int64
	Game       string
	Params     map[string]string
	Seed       uint64
	Kind       string
	State      string
	Reason     string
	Turns      int64
	Applied    bool // a rated match whose rating changes are applied
	CreatedAt  time.Time
	FinishedAt time.Time // zero while not finished
	Seats      []Seat

	// Determinism is the outcome of running the finished match a second
	// time: "" (not checked), DeterminismChecked or DeterminismMismatch.
	Determinism string
}

// Seat is one seat of a match, with its outcome once finished.
type Seat struct {
	Seat      int
	BotID     int64
	VersionID int64
	Handle    string
	BotName   string
	Score     int64
	Place     int // 1 for the best; tied seats share a place
	Statuses  map[string]int
	Fuel      int64
	Stderr    []byte // only loaded by MatchLogs
}

// Result is a finished match as a worker reports it.
type Result struct {
	MatchID int64
	Turns   int64
	Replay  []byte
	Seats   []SeatResult // in seat order
}

// SeatResult is one seat's outcome.
type SeatResult struct {
	Score    int64
	Place    int
	Statuses map[string]int
	Fuel     int64
	Stderr   []byte
}

// Rating is a Weng-Lin rating as the store keeps it.
type Rating struct{ Mu, Sigma float64 }

// RateFunc computes the ratings after a match from those before it and the
// seats' places (1 best, ties shared), seat order in and out.
type RateFunc func(before []Rating, places []int) []Rating

// CreateMatch schedules a match in state Queued and returns its id, which
// identifies it everywhere from then on (jobs, results, replays).
func (s *Store) CreateMatch(ctx context.Context, m NewMatch) (int64, error) {
	ids, err := s.CreateMatches(ctx, []NewMatch{m})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// CreateMatches is CreateMatch for several matches in one transaction
// (arena seed fills a data directory with it).
func (s *Store) CreateMatches(ctx context.Context, ms []NewMatch) ([]int64, error) {
	var games []string
	ids := make([]int64, len(ms))
	err := s.txGames(ctx, &games, func(tx *txn) error {
		for i, m := range ms {
			id, err := s.createIn(ctx, tx, m)
			if err != nil {
				return err
			}
			ids[i] = id
			if !slices.Contains(games, m.Game) {
				games = append(games, m.Game)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: create match: %w", err)
	}
	return ids, nil
}

func (s *Store) createIn(ctx context.Context, tx *txn, m NewMatch) (int64, error) {
	params, err := json.Marshal(m.Params)
	if err != nil {
		return 0, err
	}
	var id int64
	if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO matches (game, params, seed, kind, state, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`),
		m.Game, string(params), int64(m.Seed), m.Kind, Queued, now()).Scan(&id); err != nil {
		return 0, err
	}
	for i, seat := range m.Seats {
		var v any
		if seat.VersionID != 0 {
			v = seat.VersionID
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO match_seats (match_id, seat, bot_id, version_id) VALUES (?, ?, ?, ?)`), id, i, seat.BotID, v); err != nil {
			return 0, err
		}
		if m.Kind == KindRated && seat.VersionID != 0 {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE versions SET rated = rated + 1 WHERE id = ?`), seat.VersionID); err != nil {
				return 0, err
			}
		}
	}
	return id, nil
}

// MarkRunning notes that workers started these matches (those still
// queued), in one transaction.
func (s *Store) MarkRunning(ctx context.Context, ids ...int64) error {
	var games []string
	err := s.txUncounted(ctx, func(tx *txn) error {
		for _, id := range ids {
			var game string
			err := tx.QueryRowContext(ctx, s.q(`UPDATE matches SET state = ? WHERE id = ? AND state = ? RETURNING game`), Running, id, Queued).Scan(&game)
			switch {
			case errors.Is(err, sql.ErrNoRows): // ended, or running already
			case err != nil:
				return err
			case !slices.Contains(games, game):
				games = append(games, game)
			}
		}
		return nil
	})
	switch {
	case err != nil:
		s.wrote()
		return fmt.Errorf("store: mark running: %w", err)
	case len(games) == 0:
		s.wroteUnlisted() // nothing changed
	default:
		s.wroteGames(games...)
	}
	return nil
}

// RecordMatch stores a finished match and, for a rated one, applies its
// rating changes, all in one transaction. It reports false, changing
// nothing, when the match was already recorded (or failed): a result
// delivered twice counts once. A rated match in which a bot's active version
// changed meanwhile is kept as Discarded, unrated.
func (s *Store) RecordMatch(ctx context.Context, res Result, rate RateFunc) (recorded bool, err error) {
	done, err := s.RecordMatches(ctx, []Result{res}, rate)
	if err != nil {
		return false, err
	}
	return done[0].Recorded, nil
}

// Recorded is what RecordMatches did with one result.
type Recorded struct {
	Recorded   bool   // false: the match had ended already (or is unknown), nothing changed
	Game, Kind string // the match's, when recorded
}

// RecordMatches is RecordMatch for several results in one transaction,
// the ratings applied once after all of them: what a busy recorder pays
// per match falls to a share of one commit (docs/performance.md). If any
// result cannot be recorded nothing is: the caller records them one at a
// time to find which.
func (s *Store) RecordMatches(ctx context.Context, results []Result, rate RateFunc) ([]Recorded, error) {
	var games []string // the matches', and those whose ratings were applied
	out := make([]Recorded, len(results))
	err := s.txGames(ctx, &games, func(tx *txn) error {
		ratedFinished := false
		for i, res := range results {
			rec, rated, err := s.recordIn(ctx, tx, res)
			if err != nil {
				return fmt.Errorf("match %d: %w", res.MatchID, err)
			}
			if rec.Recorded && !slices.Contains(games, rec.Game) {
				games = append(games, rec.Game)
			}
			out[i] = rec
			ratedFinished = ratedFinished || rated
		}
		if !ratedFinished {
			return nil
		}
		applied, err := s.applyPending(ctx, tx, rate)
		games = append(games, applied...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: record matches: %w", err)
	}
	return out, nil
}

// recordIn writes one result in tx. It also reports whether the match is
// a rated one now finished, whose ratings are to be applied.
func (s *Store) recordIn(ctx context.Context, tx *txn, res Result) (rec Recorded, ratedFinished bool, err error) {
	var kind, game string
	err = tx.QueryRowContext(ctx, s.q(`SELECT kind, game FROM matches WHERE id = ? AND state IN (?, ?)`+s.forUpdate()), res.MatchID, Queued, Running).Scan(&kind, &game)
	if errors.Is(err, sql.ErrNoRows) {
		return Recorded{}, false, nil
	}
	if err != nil {
		return Recorded{}, false, err
	}
	seats, err := s.seatRefs(ctx, tx, res.MatchID)
	if err != nil {
		return Recorded{}, false, err
	}
	if len(seats) != len(res.Seats) {
		return Recorded{}, false, fmt.Errorf("match %d has %d seats, result has %d", res.MatchID, len(seats), len(res.Seats))
	}
	state, reason := Finished, ""
	if kind == KindRated {
		for i, ref := range seats {
			var active int64
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COALESCE(active_version, 0) FROM bots WHERE id = ?`), ref.BotID).Scan(&active); err != nil {
				return Recorded{}, false, err
			}
			if active != ref.VersionID {
				state, reason = Discarded, fmt.Sprintf("seat %d's bot has a new version since the match began", i)
			}
		}
	}
	t := now()
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE matches SET state = ?, reason = ?, turns = ?, replay = ?, finished_at = ? WHERE id = ?`),
		state, reason, res.Turns, compress(res.Replay), t, res.MatchID); err != nil {
		return Recorded{}, false, err
	}
	for i, r := range res.Seats {
		st, err := json.Marshal(r.Statuses)
		if err != nil {
			return Recorded{}, false, err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE match_seats SET score = ?, place = ?, statuses = ?, fuel = ?, stderr = ? WHERE match_id = ? AND seat = ?`),
			r.Score, r.Place, string(st), r.Fuel, r.Stderr, res.MatchID, i); err != nil {
			return Recorded{}, false, err
		}
	}
	return Recorded{Recorded: true, Game: game, Kind: kind}, kind == KindRated && state == Finished, nil
}

// ApplyPending applies the rating changes of finished rated matches that
// no longer wait for an earlier match (after a match failed, say).
func (s *Store) ApplyPending(ctx context.Context, rate RateFunc) error {
	return s.tx(ctx, func(tx *txn) error {
		_, err := s.applyPending(ctx, tx, rate)
		return err
	})
}

// applyPending applies, in creation order, every finished rated match not
// yet applied whose bots have no earlier rated match still queued, running
// or waiting: so each bot's rating changes in the order its matches were
// created, whatever order they finish in. It returns the games of the
// matches it applied.
func (s *Store) applyPending(ctx context.Context, tx *txn, rate RateFunc) (games []string, err error) {
	// Queued and running matches are never applied, so "applied = 0" picks
	// them and the finished ones still waiting, by the matches_pending
	// index, without reading the applied ones.
	rows, err := tx.QueryContext(ctx, s.q(`SELECT id, state, game FROM matches WHERE kind = ? AND applied = 0 AND state IN (?, ?, ?) ORDER BY id`),
		KindRated, Queued, Running, Finished)
	if err != nil {
		return nil, err
	}
	type pending struct {
		id          int64
		state, game string
	}
	var ms []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.id, &p.state, &p.game); err != nil {
			rows.Close()
			return nil, err
		}
		ms = append(ms, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	blocked := map[int64]bool{}
	t := now()
	for _, p := range ms {
		seats, err := s.seatRefs(ctx, tx, p.id)
		if err != nil {
			return nil, err
		}
		wait := p.state != Finished
		for _, ref := range seats {
			wait = wait || blocked[ref.BotID]
		}
		if wait {
			for _, ref := range seats {
				blocked[ref.BotID] = true
			}
			continue
		}
		before := make([]Rating, len(seats))
		places := make([]int, len(seats))
		for i, ref := range seats {
			if err := tx.QueryRowContext(ctx, s.q(`SELECT mu, sigma FROM bots WHERE id = ?`+s.forUpdate()), ref.BotID).Scan(&before[i].Mu, &before[i].Sigma); err != nil {
				return nil, err
			}
			if err := tx.QueryRowContext(ctx, s.q(`SELECT place FROM match_seats WHERE match_id = ? AND seat = ?`), p.id, i).Scan(&places[i]); err != nil {
				return nil, err
			}
		}
		after := rate(before, places)
		for i, ref := range seats {
			mu, sigma := finite(after[i].Mu), finite(after[i].Sigma)
			score := finite(s.score(mu, sigma))
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE bots SET mu = ?, sigma = ?, score = ?, matches = matches + 1 WHERE id = ?`), mu, sigma, score, ref.BotID); err != nil {
				return nil, err
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO rating_history (bot_id, match_id, mu, sigma, score, at) VALUES (?, ?, ?, ?, ?, ?)`),
				ref.BotID, p.id, mu, sigma, score, t); err != nil {
				return nil, err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE matches SET applied = 1 WHERE id = ?`), p.id); err != nil {
			return nil, err
		}
		games = append(games, p.game)
	}
	return games, nil
}

func (s *Store) seatRefs(ctx context.Context, tx *txn, id int64) ([]SeatRef, error) {
	rows, err := tx.QueryContext(ctx, s.q(`SELECT bot_id, COALESCE(version_id, 0) FROM match_seats WHERE match_id = ? ORDER BY seat`), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SeatRef
	for rows.Next() {
		var r SeatRef
		if err := rows.Scan(&r.BotID, &r.VersionID); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// FailMatch ends a queued or running match as Failed with its reason,
// unrated. It reports false when the match had already ended.
func (s *Store) FailMatch(ctx context.Context, id int64, reason string) (bool, error) {
	var game string
	err := s.w.QueryRowContext(ctx, s.q(`UPDATE matches SET state = ?, reason = ?, finished_at = ? WHERE id = ? AND state IN (?, ?) RETURNING game`),
		Failed, reason, now(), id, Queued, Running).Scan(&game)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		s.wroteUnlisted() // it had already ended: nothing changed
		return false, nil
	case err != nil:
		s.wrote()
		return false, fmt.Errorf("store: fail match: %w", err)
	}
	s.wroteGames(game)
	return true, nil
}

// Outcomes of a determinism check (Match.Determinism).
const (
	DeterminismChecked  = "checked"  // a second run gave the same replay, byte for byte
	DeterminismMismatch = "mismatch" // a second run differed: some worker plays differently
)

// MarkDeterminism records the outcome of a finished match's second run. A
// mismatch stays: a later run that agrees does not clear it.
func (s *Store) MarkDeterminism(ctx context.Context, id int64, outcome string) error {
	if outcome != DeterminismChecked && outcome != DeterminismMismatch {
		return fmt.Errorf("store: mark determinism: unknown outcome %q", outcome)
	}
	defer s.wrote()
	_, err := s.w.ExecContext(ctx, s.q(`UPDATE matches SET determinism = ? WHERE id = ? AND state = ? AND determinism <> ?`),
		outcome, id, Finished, DeterminismMismatch)
	if err != nil {
		return fmt.Errorf("store: mark determinism: %w", err)
	}
	return nil
}

// MatchFilter selects matches for a list.
type MatchFilter struct {
	Game   string
	BotID  int64
	Live   bool  // queued and running, rather than ended
	Before int64 // keyset: only ids below this; 0 for the newest
	Limit  int
}

const matchColumns = `m.id, m.game, m.params, m.seed, m.kind, m.state, m.reason, m.turns, m.applied, m.determinism, m.created_at, COALESCE(m.finished_at, 0)`

func scanMatch(sc interface{ Scan(...any) error }) (Match, error) {
	var m Match
	var params string
	var seed, created, finished int64
	var applied int
	if err := sc.Scan(&m.ID, &m.Game, &params, &seed, &m.Kind, &m.State, &m.Reason, &m.Turns, &applied, &m.Determinism, &created, &finished); err != nil {
		return Match{}, err
	}
	m.Applied = applied != 0
	m.Seed = uint64(seed)
	m.CreatedAt = time.UnixMilli(created)
	if finished != 0 {
		m.FinishedAt = time.UnixMilli(finished)
	}
	if err := json.Unmarshal([]byte(params), &m.Params); err != nil {
		return Match{}, err
	}
	return m, nil
}

// Matches lists matches, newest first, with their seats. A page costs about
// limit plus the number of live matches in rows read, however many matches
// are stored: ended lists walk an index in id order newest first (the
// primary key, (game, id), or the bot's (bot_id, match_id) seats) and skip
// the few live matches on the way; live lists start from the (state, id)
// index, which holds few live rows, and sort those. Neither may use the
// index the other needs, which on SQLite the unary + in front of a column
// ensures (noIndex); docs/performance.md has the query plans.
func (s *Store) Matches(ctx context.Context, f MatchFilter) ([]Match, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	var out []Match
	for {
		// A bot seated twice in one match makes two rows of it: matches
		// drops the second, and the page is topped up from where it ended.
		query, args := s.matchesQuery(f)
		page, rows, err := s.matchRows(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		for _, m := range page {
			if len(out) < f.Limit && (len(out) == 0 || out[len(out)-1].ID != m.ID) {
				out = append(out, m)
			}
		}
		if rows < f.Limit || len(out) >= f.Limit {
			return out, nil
		}
		f.Before = page[len(page)-1].ID
	}
}

func (s *Store) matchesQuery(f MatchFilter) (string, []any) {
	var where []string
	var args []any
	ni := s.noIndex()
	from := `matches m`
	order := `m.id`
	if f.Live {
		where = append(where, `m.state IN (?, ?)`)
		args = append(args, Queued, Running)
		if f.BotID != 0 {
			from = `matches m JOIN match_seats ms ON ms.match_id = m.id`
			where = append(where, ni+`ms.bot_id = ?`)
			args = append(args, f.BotID)
		}
		if f.Game != "" {
			where = append(where, ni+`m.game = ?`)
			args = append(args, f.Game)
		}
		if f.Before > 0 {
			where = append(where, ni+`m.id < ?`)
			args = append(args, f.Before)
		}
	} else {
		if f.BotID != 0 {
			from = `match_seats ms JOIN matches m ON m.id = ms.match_id`
			order = `ms.match_id`
			where = append(where, `ms.bot_id = ?`)
			args = append(args, f.BotID)
			if f.Before > 0 {
				where = append(where, `ms.match_id < ?`)
				args = append(args, f.Before)
			}
			if f.Game != "" {
				where = append(where, ni+`m.game = ?`)
				args = append(args, f.Game)
			}
		} else {
			if f.Game != "" {
				where = append(where, `m.game = ?`)
				args = append(args, f.Game)
			}
			if f.Before > 0 {
				where = append(where, `m.id < ?`)
				args = append(args, f.Before)
			}
		}
		where = append(where, ni+`m.state IN (?, ?, ?)`)
		args = append(args, Finished, Failed, Discarded)
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	args = append(args, f.Limit)
	return `SELECT ` + matchColumns + ` FROM ` + from + ` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order + ` DESC LIMIT ?`, args
}

// noIndex goes in front of a column in a WHERE term to keep SQLite's planner
// from choosing an index on that column; Postgres plans by its statistics
// and has no unary + on text.
func (s *Store) noIndex() string {
	if s.dialect == SQLite {
		return "+"
	}
	return ""
}

// ExplainMatches returns the database's plan for Matches(f): the lines of
// EXPLAIN QUERY PLAN on SQLite, of EXPLAIN on Postgres.
func (s *Store) ExplainMatches(ctx context.Context, f MatchFilter) ([]string, error) {
	query, args := s.matchesQuery(f)
	return s.explain(ctx, query, args...)
}

func (s *Store) explain(ctx context.Context, query string, args ...any) ([]string, error) {
	prefix := "EXPLAIN QUERY PLAN "
	if s.dialect == Postgres {
		prefix = "EXPLAIN "
	}
	rows, err := s.r.QueryContext(ctx, s.q(prefix+query), args...)
	if err != nil {
		return nil, fmt.Errorf("store: explain: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		// SQLite: id, parent, notused, detail; Postgres: one text column.
		out = append(out, fmt.Sprint(vals[len(vals)-1]))
	}
	return out, rows.Err()
}

// Unfinished lists every queued or running match, oldest first: after a
// restart, these are run (again).
func (s *Store) Unfinished(ctx context.Context) ([]Match, error) {
	return s.matches(ctx, `SELECT `+matchColumns+` FROM matches m WHERE m.state IN (?, ?) ORDER BY m.id`, Queued, Running)
}

func (s *Store) matches(ctx context.Context, query string, args ...any) ([]Match, error) {
	out, _, err := s.matchRows(ctx, query, args...)
	return out, err
}

// matchRows runs a query of matchColumns and loads the seats of the matches
// it names, each match once; it also reports how many rows the query gave.
func (s *Store) matchRows(ctx context.Context, query string, args ...any) ([]Match, int, error) {
	rows, err := s.r.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: matches: %w", err)
	}
	var out []Match
	byID := map[int64]int{}
	n := 0
	for rows.Next() {
		m, err := scanMatch(rows)
		if err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("store: matches: %w", err)
		}
		n++
		if _, dup := byID[m.ID]; dup {
			continue
		}
		byID[m.ID] = len(out)
		out = append(out, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(out) == 0 {
		return out, n, nil
	}
	ids := make([]any, len(out))
	marks := make([]string, len(out))
	for i, m := range out {
		ids[i], marks[i] = m.ID, "?"
	}
	seats, err := s.seats(ctx, `ms.match_id IN (`+strings.Join(marks, ",")+`)`, false, ids...)
	if err != nil {
		return nil, 0, err
	}
	for _, st := range seats {
		i := byID[st.matchID]
		out[i].Seats = append(out[i].Seats, st.Seat)
	}
	return out, n, nil
}

type seatRow struct {
	matchID int64
	Seat
}

func (s *Store) seats(ctx context.Context, where string, logs bool, args ...any) ([]seatRow, error) {
	cols := `ms.match_id, ms.seat, ms.bot_id, COALESCE(ms.version_id, 0), a.handle, b.name, ms.score, ms.place, ms.statuses, ms.fuel`
	if logs {
		cols += `, ms.stderr`
	}
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT `+cols+` FROM match_seats ms JOIN bots b ON b.id = ms.bot_id JOIN accounts a ON a.id = b.account_id WHERE `+where+` ORDER BY ms.match_id, ms.seat`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: seats: %w", err)
	}
	defer rows.Close()
	var out []seatRow
	for rows.Next() {
		var r seatRow
		var st string
		dst := []any{&r.matchID, &r.Seat.Seat, &r.BotID, &r.VersionID, &r.Handle, &r.BotName, &r.Score, &r.Place, &st, &r.Fuel}
		if logs {
			dst = append(dst, &r.Stderr)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("store: seats: %w", err)
		}
		if err := json.Unmarshal([]byte(st), &r.Statuses); err != nil {
			return nil, fmt.Errorf("store: seats: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Match returns one match with its seats.
func (s *Store) Match(ctx context.Context, id int64) (Match, error) {
	ms, err := s.matches(ctx, `SELECT `+matchColumns+` FROM matches m WHERE m.id = ?`, id)
	if err != nil {
		return Match{}, err
	}
	if len(ms) == 0 {
		return Match{}, ErrNotFound
	}
	return ms[0], nil
}

// MatchState returns a match's state alone (Queued, Running, ...), which
// the lease service asks at every grant.
func (s *Store) MatchState(ctx context.Context, id int64) (string, error) {
	var state string
	err := s.r.QueryRowContext(ctx, s.q(`SELECT state FROM matches WHERE id = ?`), id).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("store: match state: %w", err)
	}
	return state, nil
}

// Replay returns a finished match's replay.
func (s *Store) Replay(ctx context.Context, id int64) ([]byte, error) {
	var data []byte
	err := s.r.QueryRowContext(ctx, s.q(`SELECT replay FROM matches WHERE id = ?`), id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && data == nil) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: replay: %w", err)
	}
	return decompress(data)
}

// Replays are kept gzipped: their JSON shrinks about tenfold.
func compress(data []byte) []byte {
	if data == nil {
		return nil
	}
	var buf bytes.Buffer
	zw, _ := gzipWriters.Get().(*gzip.Writer)
	if zw == nil {
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	} else {
		zw.Reset(&buf)
	}
	zw.Write(data)
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// gzipWriters keeps compressors between replays: a new one allocates and
// clears several hundred kilobytes of tables, more than a cheap match's
// replay costs to compress.
var gzipWriters sync.Pool

func decompress(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("store: replay: %w", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("store: replay: %w", err)
	}
	return out, nil
}

// SeatLog returns the stderr one seat's bot wrote in a match.
func (s *Store) SeatLog(ctx context.Context, matchID int64, seat int) (Seat, error) {
	rows, err := s.seats(ctx, `ms.match_id = ? AND ms.seat = ?`, true, matchID, seat)
	if err != nil {
		return Seat{}, err
	}
	if len(rows) == 0 {
		return Seat{}, ErrNotFound
	}
	return rows[0].Seat, nil
}

// BusyBots returns the bots that have a rated match queued or running. The
// matchmaker gives a bot one rated match at a time, so a bot's results
// arrive, and its ratings change, in the order its matches were created.
func (s *Store) BusyBots(ctx context.Context) (map[int64]bool, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT DISTINCT ms.bot_id FROM match_seats ms JOIN matches m ON m.id = ms.match_id WHERE m.state IN (?, ?) AND m.kind = ?`), Queued, Running, KindRated)
	if err != nil {
		return nil, fmt.Errorf("store: busy bots: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// RecentMatches counts each bot's rated matches created since t.
func (s *Store) RecentMatches(ctx context.Context, game string, since time.Time) (map[int64]int, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT ms.bot_id, COUNT(*) FROM match_seats ms JOIN matches m ON m.id = ms.match_id WHERE m.game = ? AND m.kind = ? AND m.created_at >= ? GROUP BY ms.bot_id`),
		game, KindRated, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("store: recent matches: %w", err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// HistoryPoint is a bot's rating after one match.
type HistoryPoint struct {
	MatchID   int64
	Mu, Sigma float64
	Score     float64
	At        time.Time
}

// RatingHistory lists a bot's ratings, newest first, at most limit, before
// the match id before (0: from the newest).
func (s *Store) RatingHistory(ctx context.Context, botID int64, before int64, limit int) ([]HistoryPoint, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT match_id, mu, sigma, score, at FROM rating_history WHERE bot_id = ? AND match_id < ? ORDER BY match_id DESC LIMIT ?`), botID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: rating history: %w", err)
	}
	defer rows.Close()
	var out []HistoryPoint
	for rows.Next() {
		var p HistoryPoint
		var at int64
		if err := rows.Scan(&p.MatchID, &p.Mu, &p.Sigma, &p.Score, &at); err != nil {
			return nil, err
		}
		p.At = time.UnixMilli(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

// RecentRated lists the bots (seat order) of a game's last limit rated
// matches, scheduled ones included, oldest first.
func (s *Store) RecentRated(ctx context.Context, game string, limit int) ([][]int64, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT ms.match_id, ms.bot_id FROM match_seats ms WHERE ms.match_id IN
		(SELECT id FROM matches WHERE game = ? AND kind = ? ORDER BY id DESC LIMIT ?) ORDER BY ms.match_id, ms.seat`), game, KindRated, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent rated: %w", err)
	}
	defer rows.Close()
	var out [][]int64
	last := int64(-1)
	for rows.Next() {
		var mid, bid int64
		if err := rows.Scan(&mid, &bid); err != nil {
			return nil, err
		}
		if mid != last {
			out = append(out, nil)
			last = mid
		}
		out[len(out)-1] = append(out[len(out)-1], bid)
	}
	return out, rows.Err()
}

// VersionPlayed counts the rated matches scheduled for the active version
// of each of a game's bots (a count kept by CreateMatch).
func (s *Store) VersionPlayed(ctx context.Context, game string) (map[int64]int, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT v.id, v.rated FROM bots b JOIN versions v ON v.id = b.active_version WHERE b.game = ? AND v.rated > 0`), game)
	if err != nil {
		return nil, fmt.Errorf("store: version played: %w", err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var v int64
		var n int
		if err := rows.Scan(&v, &n); err != nil {
			return nil, err
		}
		out[v] = n
	}
	return out, rows.Err()
}

// CountLive counts queued and running matches, all of them and those of
// one kind, in one query.
func (s *Store) CountLive(ctx context.Context, kind string) (all, ofKind int, err error) {
	err = s.r.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COALESCE(SUM(CASE WHEN kind = ? THEN 1 ELSE 0 END), 0) FROM matches WHERE state IN (?, ?)`),
		kind, Queued, Running).Scan(&all, &ofKind)
	if err != nil {
		return 0, 0, fmt.Errorf("store: count live: %w", err)
	}
	return all, ofKind, nil
}

// CountLiveOfKind counts queued and running matches of one kind.
func (s *Store) CountLiveOfKind(ctx context.Context, kind string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM matches WHERE state IN (?, ?) AND kind = ?`), Queued, Running, kind).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count live %s matches: %w", kind, err)
	}
	return n, nil
}
