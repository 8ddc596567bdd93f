// Package store keeps the platform's records: accounts and their tokens,
// bots and their versions, matches with their replays and logs, and ratings.
// One implementation over database/sql serves both databases: SQLite
// (modernc.org/sqlite, the embedded default) and Postgres (pgx). Migrations
// are embedded and run at Open, with DDL per dialect.
//
// Writes that must happen together happen in one transaction; above all a
// finished match and the rating updates it causes (RecordMatch), which is
// also idempotent: a match is recorded at most once, whoever reports it.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers "sqlite"
)

//go:embed migrations
var migrations embed.FS

// ErrNotFound is returned when a looked-up record does not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned when a unique name is taken.
var ErrExists = errors.New("already exists")

// Dialects.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Options configures Open.
type Options struct {
	// Score maps a rating to the leaderboard's sort key (the conservative
	// estimate). Nil means mu - 3 sigma.
	Score func(mu, sigma float64) float64
}

// Store is the platform's database. It is safe for concurrent use.
type Store struct {
	w, r    *db // SQLite: one writer connection, a pool of readers; Postgres: the same pool
	dialect string
	score   func(mu, sigma float64) float64
	// gen counts writes: a read made after Generation returned g shows
	// every write counted in g, so a cache of reads tagged with g is
	// current while Generation still answers g. This process is the
	// database's only writer (workers write nothing), which that needs.
	gen atomic.Uint64
	// lists counts the writes the public lists can show, per game, so
	// that a match recorded in one game leaves every other game's cached
	// pages current (ListGeneration).
	lists listGens
}

// listGens are the generations of the public lists. A write names the
// games whose lists it may change (wroteGames); a write that cannot say
// counts for every game (common). all counts both, for lists that span
// games. Every counter only grows.
type listGens struct {
	all, common atomic.Uint64
	mu          sync.Mutex
	games       map[string]*atomic.Uint64
}

func (l *listGens) game(g string) *atomic.Uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.games[g]
	if c == nil {
		if l.games == nil {
			l.games = map[string]*atomic.Uint64{}
		}
		c = new(atomic.Uint64)
		l.games[g] = c
	}
	return c
}

// Generation changes after every write to the database (after it commits,
// or fails): what was read while it answered g may be cached until it
// answers something else.
func (s *Store) Generation() uint64 { return s.gen.Load() }

// ListGeneration is Generation for what lists of one game show (its
// leaderboard, its matches, its bots' matches): it changes after every
// write that may change them, and not for writes to other games or to
// what no list shows (sessions, tokens, new accounts). With game "" it
// covers the lists that span games.
func (s *Store) ListGeneration(game string) uint64 {
	if game == "" {
		return s.lists.all.Load()
	}
	return s.lists.common.Load() + s.lists.game(game).Load()
}

// wrote counts a write that any list may show; deferred by every writing
// method that cannot name the games it touches.
func (s *Store) wrote() {
	s.gen.Add(1)
	s.lists.common.Add(1)
	s.lists.all.Add(1)
}

// wroteGames counts a write that only these games' lists may show.
func (s *Store) wroteGames(games ...string) {
	s.gen.Add(1)
	s.lists.all.Add(1)
	for i, g := range games {
		if !slices.Contains(games[:i], g) {
			s.lists.game(g).Add(1)
		}
	}
}

// wroteUnlisted counts a write that no list shows.
func (s *Store) wroteUnlisted() { s.gen.Add(1) }

// sqlitePragmas are the settings every SQLite connection gets: WAL so
// readers never block the writer, a busy timeout instead of SQLITE_BUSY, and
// transactions that take the write lock at BEGIN, so read-then-write
// transactions cannot deadlock.
const sqlitePragmas = "_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"

// RedactURL quotes a database URL for a message with its password, if any,
// replaced by "xxxxx": messages end up in logs and terminals.
func RedactURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		// Unparsable: show only the scheme-like start, never what may be a
		// password after it.
		head, _, _ := strings.Cut(raw, ":")
		return strconv.Quote(head + ":...")
	}
	return strconv.Quote(u.Redacted())
}

// Open opens the database named by url and brings its schema up to date.
// url is "postgres://..." (or "postgresql://..."), "sqlite:PATH", or empty
// for SQLite at dataDir/arena.db.
func Open(ctx context.Context, url, dataDir string, opt Options) (*Store, error) {
	s := &Store{score: opt.Score}
	if s.score == nil {
		s.score = func(mu, sigma float64) float64 { return mu - 3*sigma }
	}
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := sql.Open("pgx", url)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		db.SetMaxOpenConns(16)
		// Idle connections are kept, with their prepared statements.
		db.SetMaxIdleConns(16)
		pg := newDB(db)
		s.w, s.r, s.dialect = pg, pg, Postgres
	case url == "" || strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			if err := os.MkdirAll(dataDir, 0o700); err != nil {
				return nil, fmt.Errorf("store: data directory: %w", err)
			}
			path = filepath.Join(dataDir, "arena.db")
		}
		dsn := "file:" + path + "?" + sqlitePragmas
		w, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		w.SetMaxOpenConns(1)
		r, err := sql.Open("sqlite", dsn)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("store: %w", err)
		}
		r.SetMaxOpenConns(8)
		// Idle readers are kept, with their prepared statements: at the
		// default of two, a third concurrent read opened a connection and
		// closed it after.
		r.SetMaxIdleConns(8)
		s.w, s.r, s.dialect = newDB(w), newDB(r), SQLite
	default:
		return nil, fmt.Errorf("store: database URL %s: want postgres://..., sqlite:PATH or nothing", RedactURL(url))
	}
	if err := s.w.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+s.dialect)
	if err != nil {
		return err
	}
	d := goose.DialectSQLite3
	if s.dialect == Postgres {
		d = goose.DialectPostgres
	}
	p, err := goose.NewProvider(d, s.w.DB, sub)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// Dialect names the database in use.
func (s *Store) Dialect() string { return s.dialect }

// Close closes the database.
func (s *Store) Close() error {
	err := s.w.Close()
	if s.r != s.w {
		if rerr := s.r.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

// q rewrites ? placeholders for Postgres. Queries here never hold a ? in a
// literal.
func (s *Store) q(query string) string {
	if s.dialect != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// forUpdate locks read rows in a Postgres transaction; SQLite transactions
// already hold the write lock from BEGIN.
func (s *Store) forUpdate() string {
	if s.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

func now() int64 { return time.Now().UnixMilli() }

func isUnique(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "UNIQUE constraint") || strings.Contains(m, "SQLSTATE 23505")
}

func (s *Store) tx(ctx context.Context, f func(*txn) error) error {
	defer s.wrote()
	return s.txUncounted(ctx, f)
}

// txGames is tx for a write that touches only the games f names in
// *games; should f name none (it failed early, say), it counts for all.
func (s *Store) txGames(ctx context.Context, games *[]string, f func(*txn) error) error {
	defer func() {
		if len(*games) == 0 {
			s.wrote()
		} else {
			s.wroteGames(*games...)
		}
	}()
	return s.txUncounted(ctx, f)
}

func (s *Store) txUncounted(ctx context.Context, f func(*txn) error) error {
	tx, err := s.w.begin(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// finite guards the database against NaN and infinite ratings, which
// Postgres and SQLite order differently.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
