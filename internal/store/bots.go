package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bot is a player's named bot for one game, with its rating. The rating
// belongs to the bot, not the version: a new version keeps the mean.
type Bot struct {
	ID            int64
	AccountID     int64
	Handle        string
	Game          string
	Name          string
	Spec          string // "builtin:NAME" for house bots, empty for uploads
	Retired       bool
	ActiveVersion int64 // 0: none active yet
	Mu, Sigma     float64
	Score         float64
	Matches       int64
	CreatedAt     time.Time
}

// Version states.
const (
	VersionChecking = "checking"
	VersionActive   = "active"
	VersionRefused  = "refused"
	VersionOld      = "replaced"
)

// Version is one upload of a bot.
type Version struct {
	ID         int64
	BotID      int64
	Number     int64
	SHA256     string
	Size       int64
	State      string
	Message    string
	SmokeMatch int64
	CreatedAt  time.Time
	// Pruned: the module was deleted a day after the version was replaced
	// (PruneModules); the record stays.
	Pruned bool
}

const botColumns = `b.id, b.account_id, a.handle, b.game, b.name, b.spec, b.retired, COALESCE(b.active_version, 0), b.mu, b.sigma, b.score, b.matches, b.created_at`

func scanBot(sc interface{ Scan(...any) error }) (Bot, error) {
	var b Bot
	var retired int
	var created int64
	err := sc.Scan(&b.ID, &b.AccountID, &b.Handle, &b.Game, &b.Name, &b.Spec, &retired, &b.ActiveVersion, &b.Mu, &b.Sigma, &b.Score, &b.Matches, &created)
	b.Retired = retired != 0
	b.CreatedAt = time.UnixMilli(created)
	return b, err
}

// EnsureHouseBot makes sure the house bot exists and is active with the
// given initial rating; it returns it as stored.
func (s *Store) EnsureHouseBot(ctx context.Context, accountID int64, game, name, spec string, mu, sigma float64) (Bot, error) {
	b, err := s.BotByName(ctx, accountID, game, name)
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Bot{}, err
	}
	err = s.tx(ctx, func(tx *txn) error {
		var id int64
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO bots (account_id, game, name, spec, mu, sigma, score, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			accountID, game, name, spec, mu, sigma, s.score(mu, sigma), now()).Scan(&id); err != nil {
			return err
		}
		var vid int64
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO versions (bot_id, number, sha256, size, state, created_at) VALUES (?, 1, '', 0, ?, ?) RETURNING id`),
			id, VersionActive, now()).Scan(&vid); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE bots SET active_version = ? WHERE id = ?`), vid, id)
		return err
	})
	if err != nil && !isUnique(err) {
		return Bot{}, fmt.Errorf("store: house bot %s/%s: %w", game, name, err)
	}
	return s.BotByName(ctx, accountID, game, name)
}

// Bot finds a bot by id.
func (s *Store) Bot(ctx context.Context, id int64) (Bot, error) {
	return s.oneBot(ctx, `b.id = ?`, id)
}

// BotByName finds a player's bot for a game by name.
func (s *Store) BotByName(ctx context.Context, accountID int64, game, name string) (Bot, error) {
	return s.oneBot(ctx, `b.account_id = ? AND b.game = ? AND b.name = ?`, accountID, game, name)
}

func (s *Store) oneBot(ctx context.Context, where string, args ...any) (Bot, error) {
	b, err := scanBot(s.r.QueryRowContext(ctx, s.q(`SELECT `+botColumns+` FROM bots b JOIN accounts a ON a.id = b.account_id WHERE `+where), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Bot{}, ErrNotFound
	}
	if err != nil {
		return Bot{}, fmt.Errorf("store: bot: %w", err)
	}
	return b, nil
}

// BotsOf lists an account's bots, by game then name.
func (s *Store) BotsOf(ctx context.Context, accountID int64) ([]Bot, error) {
	return s.bots(ctx, `b.account_id = ? ORDER BY b.game, b.name`, accountID)
}

// ActiveBots lists the bots of a game that can play: not retired, with an
// active version.
func (s *Store) ActiveBots(ctx context.Context, game string) ([]Bot, error) {
	return s.bots(ctx, `b.game = ? AND b.retired = 0 AND b.active_version IS NOT NULL ORDER BY b.id`, game)
}

func (s *Store) bots(ctx context.Context, where string, args ...any) ([]Bot, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT `+botColumns+` FROM bots b JOIN accounts a ON a.id = b.account_id WHERE `+where), args...)
	if err != nil {
		return nil, fmt.Errorf("store: bots: %w", err)
	}
	defer rows.Close()
	var out []Bot
	for rows.Next() {
		b, err := scanBot(rows)
		if err != nil {
			return nil, fmt.Errorf("store: bots: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// AddVersion stores an uploaded module as a new version of the account's
// named bot (creating the bot with the initial rating when it is new), in
// state VersionChecking.
func (s *Store) AddVersion(ctx context.Context, accountID int64, game, name, sha string, wasm []byte, mu, sigma float64) (Bot, Version, error) {
	return s.AddUpload(ctx, accountID, game, name, sha, wasm, mu, sigma, UploadLimits{})
}

// UploadLimits bound what one account adds; a zero field is no bound.
type UploadLimits struct {
	PerDay      int // versions in the 24 hours before Now, refused ones included
	BotsPerGame int // bots for one game, retired ones included
	Now         time.Time
}

// LimitError is an upload refused by UploadLimits.
type LimitError struct {
	Game        string
	Bots        bool // too many bots for Game; otherwise too many versions a day
	Limit, Have int
	Names       []string  // bots: the names of those that count (up to 20)
	Next        time.Time // versions a day: when the first of them turns a day old
}

func (e *LimitError) Error() string {
	if e.Bots {
		return fmt.Sprintf("store: %d bots for %s, the most an account may have", e.Have, e.Game)
	}
	return fmt.Sprintf("store: %d versions in 24 hours, the most an account may upload", e.Have)
}

// CheckUploadLimits returns a *LimitError when the account may not add a
// version of the named bot now, nil when it may. AddUpload checks again as
// it adds: uploads sent at once may all pass this.
func (s *Store) CheckUploadLimits(ctx context.Context, accountID int64, game, name string, lim UploadLimits) error {
	if err := s.checkLimits(ctx, s.r, accountID, game, name, lim); err != nil {
		return fmt.Errorf("store: upload limits: %w", err)
	}
	return nil
}

// querier is a database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *Store) checkLimits(ctx context.Context, q querier, accountID int64, game, name string, lim UploadLimits) error {
	if lim.PerDay > 0 {
		var n int
		var first sql.NullInt64
		if err := q.QueryRowContext(ctx, s.q(`SELECT COUNT(*), MIN(v.created_at) FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.account_id = ? AND v.created_at > ?`),
			accountID, lim.Now.Add(-24*time.Hour).UnixMilli()).Scan(&n, &first); err != nil {
			return err
		}
		if n >= lim.PerDay {
			return &LimitError{Game: game, Limit: lim.PerDay, Have: n, Next: time.UnixMilli(first.Int64).Add(24 * time.Hour)}
		}
	}
	if lim.BotsPerGame > 0 {
		// A bot counts once a version of it may play (or is being
		// checked): one refused upload does not take a place for good.
		rows, err := q.QueryContext(ctx, s.q(`SELECT name FROM bots b WHERE account_id = ? AND game = ?
  AND EXISTS (SELECT 1 FROM versions v WHERE v.bot_id = b.id AND v.state <> ?) ORDER BY name`), accountID, game, VersionRefused)
		if err != nil {
			return err
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var nm string
			if err := rows.Scan(&nm); err != nil {
				return err
			}
			names = append(names, nm)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if !slices.Contains(names, name) && len(names) >= lim.BotsPerGame {
			return &LimitError{Game: game, Bots: true, Limit: lim.BotsPerGame, Have: len(names), Names: names[:min(len(names), 20)]}
		}
	}
	return nil
}

// AddUpload is AddVersion held to lim, checked in the same transaction as
// the version is added (a *LimitError when over): uploads sent at once are
// counted one after another.
func (s *Store) AddUpload(ctx context.Context, accountID int64, game, name, sha string, wasm []byte, mu, sigma float64, lim UploadLimits) (Bot, Version, error) {
	var v Version
	var botID int64
	err := s.tx(ctx, func(tx *txn) error {
		if lim != (UploadLimits{}) {
			// Postgres: the account's row lock orders its uploads (SQLite's
			// write transactions are one at a time already); NO KEY, so that
			// log-ins adding tokens (a key share of the row) do not wait.
			var id int64
			lock := ""
			if s.dialect == Postgres {
				lock = " FOR NO KEY UPDATE"
			}
			if err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM accounts WHERE id = ?`+lock), accountID).Scan(&id); err != nil {
				return err
			}
			if err := s.checkLimits(ctx, tx, accountID, game, name, lim); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO wasm (sha256, data) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING`), sha, wasm); err != nil {
			return err
		}
		var retired int
		err := tx.QueryRowContext(ctx, s.q(`SELECT id, retired FROM bots WHERE account_id = ? AND game = ? AND name = ?`+s.forUpdate()), accountID, game, name).Scan(&botID, &retired)
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, s.q(`INSERT INTO bots (account_id, game, name, mu, sigma, score, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`),
				accountID, game, name, mu, sigma, s.score(mu, sigma), now()).Scan(&botID)
		}
		if err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COALESCE(MAX(number), 0) FROM versions WHERE bot_id = ?`), botID).Scan(&n); err != nil {
			return err
		}
		v = Version{BotID: botID, Number: n + 1, SHA256: sha, Size: int64(len(wasm)), State: VersionChecking, CreatedAt: time.UnixMilli(now())}
		return tx.QueryRowContext(ctx, s.q(`INSERT INTO versions (bot_id, number, sha256, size, state, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`),
			botID, v.Number, sha, v.Size, v.State, v.CreatedAt.UnixMilli()).Scan(&v.ID)
	})
	if err != nil {
		return Bot{}, Version{}, fmt.Errorf("store: add version: %w", err)
	}
	b, err := s.Bot(ctx, botID)
	return b, v, err
}

// FinishCheck records the outcome of a version's checks. An accepted version
// becomes the bot's active one (un-retiring the bot), keeps the bot's mean
// and takes sigma as its new uncertainty.
func (s *Store) FinishCheck(ctx context.Context, versionID int64, accepted bool, message string, smokeMatch int64, sigma float64) error {
	// The message quotes what a bot sent: Postgres refuses text that is
	// not UTF-8, and the version would stay "checking" for good.
	message = strings.ToValidUTF8(message, "\uFFFD")
	return s.tx(ctx, func(tx *txn) error {
		var botID int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT bot_id FROM versions WHERE id = ?`), versionID).Scan(&botID); err != nil {
			return fmt.Errorf("store: version %d: %w", versionID, err)
		}
		state := VersionRefused
		if accepted {
			state = VersionActive
		}
		var sm any
		if smokeMatch != 0 {
			sm = smokeMatch
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE versions SET state = ?, message = ?, smoke_match = ? WHERE id = ?`), state, message, sm, versionID); err != nil {
			return err
		}
		if !accepted {
			return nil
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE versions SET state = ?, replaced_at = ? WHERE bot_id = ? AND state = ? AND id <> ?`), VersionOld, now(), botID, VersionActive, versionID); err != nil {
			return err
		}
		var mu float64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT mu FROM bots WHERE id = ?`+s.forUpdate()), botID).Scan(&mu); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE bots SET active_version = ?, retired = 0, sigma = ?, score = ? WHERE id = ?`),
			versionID, sigma, finite(s.score(mu, sigma)), botID)
		return err
	})
}

const versionColumns = `id, bot_id, number, sha256, size, state, message, COALESCE(smoke_match, 0), created_at, pruned`

func scanVersion(sc interface{ Scan(...any) error }) (Version, error) {
	var v Version
	var created int64
	var pruned int
	err := sc.Scan(&v.ID, &v.BotID, &v.Number, &v.SHA256, &v.Size, &v.State, &v.Message, &v.SmokeMatch, &created, &pruned)
	v.CreatedAt = time.UnixMilli(created)
	v.Pruned = pruned != 0
	return v, err
}

// Versions lists a bot's versions, newest first.
func (s *Store) Versions(ctx context.Context, botID int64) ([]Version, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT `+versionColumns+` FROM versions WHERE bot_id = ? ORDER BY number DESC`), botID)
	if err != nil {
		return nil, fmt.Errorf("store: versions: %w", err)
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("store: versions: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Version finds a version by id.
func (s *Store) Version(ctx context.Context, id int64) (Version, error) {
	v, err := scanVersion(s.r.QueryRowContext(ctx, s.q(`SELECT `+versionColumns+` FROM versions WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Version{}, ErrNotFound
	}
	if err != nil {
		return Version{}, fmt.Errorf("store: version: %w", err)
	}
	return v, nil
}

// Retire takes a bot off the ladder; it keeps its history.
func (s *Store) Retire(ctx context.Context, botID int64) error {
	defer s.wrote()
	_, err := s.w.ExecContext(ctx, s.q(`UPDATE bots SET retired = 1 WHERE id = ?`), botID)
	if err != nil {
		return fmt.Errorf("store: retire: %w", err)
	}
	return nil
}

// DropRefusedModule deletes a stored module that only refused versions use:
// a refused version is never played again, and its module (up to 32 MiB)
// would stay for good, an upload after another. It reports whether it
// deleted it; the versions keep their hash and message.
func (s *Store) DropRefusedModule(ctx context.Context, sha string) (bool, error) {
	var dropped bool
	err := s.tx(ctx, func(tx *txn) error {
		var err error
		dropped, err = s.dropUnused(ctx, tx, sha)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: drop module %s: %w", sha, err)
	}
	return dropped, nil
}

// dropUnused deletes a module that no version may play any more: every
// version with its bytes is refused or pruned.
func (s *Store) dropUnused(ctx context.Context, tx *txn, sha string) (bool, error) {
	res, err := tx.ExecContext(ctx, s.q(`DELETE FROM wasm WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM versions WHERE sha256 = ? AND state <> ? AND pruned = 0)`), sha, sha, VersionRefused)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// PruneModules releases the modules of versions replaced before t that no
// queued or running match seats: they are marked pruned, and each module
// no other version may still play is deleted. It returns the hashes of the
// deleted modules (for the object store). Without it every upload of a
// bot's history (up to 32 MiB each) would stay on disk for good; nothing
// plays a replaced version once its last matches have ended.
func (s *Store) PruneModules(ctx context.Context, t time.Time) ([]string, error) {
	var deleted []string
	err := s.tx(ctx, func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, s.q(`SELECT id, sha256 FROM versions v WHERE state = ? AND pruned = 0 AND COALESCE(replaced_at, created_at) < ?
  AND NOT EXISTS (SELECT 1 FROM matches m JOIN match_seats ms ON ms.match_id = m.id WHERE m.state IN (?, ?) AND ms.version_id = v.id)
  ORDER BY id`), VersionOld, t.UnixMilli(), Queued, Running)
		if err != nil {
			return err
		}
		var ids []int64
		var shas []string
		for rows.Next() {
			var id int64
			var sha string
			if err := rows.Scan(&id, &sha); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
			if !slices.Contains(shas, sha) {
				shas = append(shas, sha)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE versions SET pruned = 1 WHERE id = ?`), id); err != nil {
				return err
			}
		}
		for _, sha := range shas {
			dropped, err := s.dropUnused(ctx, tx, sha)
			if err != nil {
				return err
			}
			if dropped {
				deleted = append(deleted, sha)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: prune modules: %w", err)
	}
	return deleted, nil
}

// HasWasm reports whether a module is stored, without reading it (up to
// 32 MiB).
func (s *Store) HasWasm(ctx context.Context, sha string) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, s.q(`SELECT 1 FROM wasm WHERE sha256 = ?`), sha).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: has wasm: %w", err)
	}
	return true, nil
}

// Wasm returns a stored module by its sha256.
func (s *Store) Wasm(ctx context.Context, sha string) ([]byte, error) {
	var data []byte
	err := s.r.QueryRowContext(ctx, s.q(`SELECT data FROM wasm WHERE sha256 = ?`), sha).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: wasm: %w", err)
	}
	return data, nil
}

// LeaderRow is one line of a leaderboard.
type LeaderRow struct {
	Rank int64
	Bot  Bot
}

// Cursor is a keyset position in a leaderboard: the last row shown.
type Cursor struct {
	Score float64
	ID    int64
	Rank  int64
}

// Leaderboard lists a game's playing bots by score, best first, limit rows
// after the cursor (nil: from the top). Keyset pagination: the cost of a page
// does not grow with its depth.
func (s *Store) Leaderboard(ctx context.Context, game string, after *Cursor, limit int) ([]LeaderRow, error) {
	return s.leaderPage(ctx, leaderWhere, []any{game}, after, limit)
}

// leaderWhere keeps a game's playing bots.
const leaderWhere = `b.game = ? AND b.retired = 0 AND b.active_version IS NOT NULL`

// SetSmokeMatch links a version to the match that tries it.
func (s *Store) SetSmokeMatch(ctx context.Context, versionID, matchID int64) error {
	defer s.wrote()
	_, err := s.w.ExecContext(ctx, s.q(`UPDATE versions SET smoke_match = ? WHERE id = ?`), matchID, versionID)
	if err != nil {
		return fmt.Errorf("store: smoke match: %w", err)
	}
	return nil
}

// VersionBySmokeMatch finds the version a smoke match tries.
func (s *Store) VersionBySmokeMatch(ctx context.Context, matchID int64) (Version, error) {
	var id int64
	err := s.r.QueryRowContext(ctx, s.q(`SELECT id FROM versions WHERE smoke_match = ?`), matchID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Version{}, ErrNotFound
	}
	if err != nil {
		return Version{}, fmt.Errorf("store: version by smoke match: %w", err)
	}
	return s.Version(ctx, id)
}

// Checking lists versions whose checks have not finished.
func (s *Store) Checking(ctx context.Context) ([]Version, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT id FROM versions WHERE state = ? ORDER BY id`), VersionChecking)
	if err != nil {
		return nil, fmt.Errorf("store: checking: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	var out []Version
	for _, id := range ids {
		v, err := s.Version(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
