package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LeaderFilter narrows a leaderboard (LeaderboardOf).
type LeaderFilter struct {
	// Players, when above 0, keeps the bots that played rated matches of
	// that many players, and their records count those matches alone.
	Players int
	// ActiveSince, when set, keeps the bots whose last rated match (of
	// Players players, when set) ended at or after it.
	ActiveSince time.Time
	// Search, when set, keeps the bots whose name, or whose player's
	// handle, contains it, ignoring case; each keeps its rank among the
	// bots the other filters keep.
	Search string
}

// MaxSearch bounds LeaderFilter.Search: a bot's name has at most 32
// characters, a handle 24.
const MaxSearch = 32

// Record is a bot's results in rated matches: a win is a first place
// alone, a draw a first place shared, a loss any other place.
type Record struct{ Wins, Draws, Losses int64 }

// LeaderLine is one line of a filtered leaderboard: the bot, its rank, its
// record, and its ratings after its last two rated matches (Last and
// Previous; nil when it played fewer).
type LeaderLine struct {
	LeaderRow
	Record         Record
	Last, Previous *HistoryPoint
}

// LeaderboardOf lists a game's playing bots the filter keeps, by score, best
// first, limit lines after the cursor (nil: from the top). Without a search
// it walks the leaderboard's index and stops at the end of the page, as
// Leaderboard does; a search ranks the bots the other filters keep (a scan
// of the game's bots, which are few beside its matches) and keeps those
// that match. Records come from bot_records, one row per bot and number of
// players, so no query here reads the matches.
func (s *Store) LeaderboardOf(ctx context.Context, game string, f LeaderFilter, after *Cursor, limit int) ([]LeaderLine, error) {
	if len(f.Search) > MaxSearch {
		return nil, fmt.Errorf("store: leaderboard search of %d bytes, more than %d", len(f.Search), MaxSearch)
	}
	where, args := leaderWhere, []any{game}
	if f.Players > 0 || !f.ActiveSince.IsZero() {
		where += ` AND EXISTS (SELECT 1 FROM bot_records r WHERE r.bot_id = b.id`
		if f.Players > 0 {
			where += ` AND r.players = ?`
			args = append(args, f.Players)
		}
		if !f.ActiveSince.IsZero() {
			where += ` AND r.last_at >= ?`
			args = append(args, f.ActiveSince.UnixMilli())
		}
		where += `)`
	}
	var rows []LeaderRow
	var err error
	if f.Search == "" {
		rows, err = s.leaderPage(ctx, where, args, after, limit)
	} else {
		rows, err = s.leaderSearch(ctx, where, args, f.Search, after, limit)
	}
	if err != nil {
		return nil, err
	}
	return s.leaderLines(ctx, rows, f.Players)
}

// leaderLines adds their records and last two ratings to a page's rows, in
// two queries whatever the page's length.
func (s *Store) leaderLines(ctx context.Context, rows []LeaderRow, players int) ([]LeaderLine, error) {
	out := make([]LeaderLine, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	at := map[int64]*LeaderLine{}
	ids := make([]any, len(rows))
	for i, r := range rows {
		out[i].LeaderRow = r
		at[r.Bot.ID] = &out[i]
		ids[i] = r.Bot.ID
	}
	in := "?" + strings.Repeat(", ?", len(ids)-1)
	query, args := `SELECT bot_id, SUM(wins), SUM(draws), SUM(losses) FROM bot_records WHERE bot_id IN (`+in+`)`, ids
	if players > 0 {
		query, args = query+` AND players = ?`, append(slices.Clone(ids), players)
	}
	if err := s.each(ctx, query+` GROUP BY bot_id`, args, func(sc scanner) error {
		var id int64
		var r Record
		if err := sc.Scan(&id, &r.Wins, &r.Draws, &r.Losses); err != nil {
			return err
		}
		at[id].Record = r
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: leaderboard records: %w", err)
	}
	// Each bot's last two ratings: one index descent a bot, in one query.
	parts := make([]string, len(ids))
	for i := range ids {
		parts[i] = `SELECT * FROM (SELECT bot_id, match_id, mu, sigma, score, at FROM rating_history WHERE bot_id = ? ORDER BY match_id DESC LIMIT 2) h` + strconv.Itoa(i)
	}
	if err := s.each(ctx, strings.Join(parts, " UNION ALL ")+` ORDER BY 1, 2 DESC`, ids, func(sc scanner) error {
		var id, ms int64
		var p HistoryPoint
		if err := sc.Scan(&id, &p.MatchID, &p.Mu, &p.Sigma, &p.Score, &ms); err != nil {
			return err
		}
		p.At = time.UnixMilli(ms)
		l := at[id]
		if l.Last == nil {
			l.Last = &p
		} else {
			l.Previous = &p
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: leaderboard ratings: %w", err)
	}
	return out, nil
}

// scanner is a row to scan.
type scanner interface{ Scan(...any) error }

// each runs query and calls f with each row.
func (s *Store) each(ctx context.Context, query string, args []any, f func(scanner) error) error {
	rows, err := s.r.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// leaderPage is a keyset page of the bots where keeps.
func (s *Store) leaderPage(ctx context.Context, where string, args []any, after *Cursor, limit int) ([]LeaderRow, error) {
	rank := int64(0)
	if after != nil {
		where += ` AND (b.score < ? OR (b.score = ? AND b.id > ?))`
		args = append(args, after.Score, after.Score, after.ID)
		rank = after.Rank
	}
	bots, err := s.bots(ctx, where+` ORDER BY b.score DESC, b.id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	out := make([]LeaderRow, len(bots))
	for i, b := range bots {
		rank++
		out[i] = LeaderRow{Rank: rank, Bot: b}
	}
	return out, nil
}

// leaderSearch ranks the bots where keeps and lists those whose name or
// handle contains search, after the cursor's rank.
func (s *Store) leaderSearch(ctx context.Context, where string, args []any, search string, after *Cursor, limit int) ([]LeaderRow, error) {
	pattern := "%" + likeEscape(strings.ToLower(search)) + "%"
	rank := int64(0)
	if after != nil {
		rank = after.Rank
	}
	query := `SELECT ` + botColumns + `, t.rank FROM (SELECT b.id, ROW_NUMBER() OVER (ORDER BY b.score DESC, b.id) AS rank FROM bots b WHERE ` + where + `) t
		JOIN bots b ON b.id = t.id JOIN accounts a ON a.id = b.account_id
		WHERE (LOWER(b.name) LIKE ? ESCAPE '!' OR a.handle LIKE ? ESCAPE '!') AND t.rank > ? ORDER BY t.rank LIMIT ?`
	rs, err := s.r.QueryContext(ctx, s.q(query), append(args, pattern, pattern, rank, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard search: %w", err)
	}
	defer rs.Close()
	var out []LeaderRow
	for rs.Next() {
		var r LeaderRow
		var retired int
		var created int64
		b := &r.Bot
		if err := rs.Scan(&b.ID, &b.AccountID, &b.Handle, &b.Game, &b.Name, &b.Spec, &retired, &b.ActiveVersion, &b.Mu, &b.Sigma, &b.Score, &b.Matches, &created, &r.Rank); err != nil {
			return nil, fmt.Errorf("store: leaderboard search: %w", err)
		}
		b.Retired = retired != 0
		b.CreatedAt = time.UnixMilli(created)
		out = append(out, r)
	}
	return out, rs.Err()
}

// likeEscape makes s match itself alone in a LIKE pattern with ESCAPE '!'.
func likeEscape(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// Records is a bot's record in rated matches by number of players.
func (s *Store) Records(ctx context.Context, botID int64) (map[int]Record, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT players, wins, draws, losses FROM bot_records WHERE bot_id = ? ORDER BY players`), botID)
	if err != nil {
		return nil, fmt.Errorf("store: records: %w", err)
	}
	defer rows.Close()
	out := map[int]Record{}
	for rows.Next() {
		var n int
		var r Record
		if err := rows.Scan(&n, &r.Wins, &r.Draws, &r.Losses); err != nil {
			return nil, fmt.Errorf("store: records: %w", err)
		}
		out[n] = r
	}
	return out, rows.Err()
}
