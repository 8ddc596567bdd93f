package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Account is a user (or the house).
type Account struct {
	ID           int64
	Handle       string
	PasswordHash string
	CreatedAt    time.Time
}

// Token kinds.
const (
	TokenAPI     = "api"     // Bearer tokens for the CLI and scripts
	TokenSession = "session" // browser sessions, with a CSRF secret
)

// CreateAccount adds an account; ErrExists when the handle is taken.
func (s *Store) CreateAccount(ctx context.Context, handle, passwordHash string) (Account, error) {
	a := Account{Handle: handle, PasswordHash: passwordHash, CreatedAt: time.UnixMilli(now())}
	defer s.wroteUnlisted() // no list shows accounts without bots, or tokens
	err := s.w.QueryRowContext(ctx, s.q(`INSERT INTO accounts (handle, password_hash, created_at) VALUES (?, ?, ?) RETURNING id`),
		handle, passwordHash, a.CreatedAt.UnixMilli()).Scan(&a.ID)
	if isUnique(err) {
		return Account{}, ErrExists
	}
	if err != nil {
		return Account{}, fmt.Errorf("store: create account: %w", err)
	}
	return a, nil
}

// AccountByHandle finds an account by its handle.
func (s *Store) AccountByHandle(ctx context.Context, handle string) (Account, error) {
	return s.account(ctx, `handle = ?`, handle)
}

// AccountByID finds an account by id.
func (s *Store) AccountByID(ctx context.Context, id int64) (Account, error) {
	return s.account(ctx, `id = ?`, id)
}

func (s *Store) account(ctx context.Context, where string, arg any) (Account, error) {
	var a Account
	var created int64
	err := s.r.QueryRowContext(ctx, s.q(`SELECT id, handle, password_hash, created_at FROM accounts WHERE `+where), arg).
		Scan(&a.ID, &a.Handle, &a.PasswordHash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, ErrNotFound
	}
	if err != nil {
		return Account{}, fmt.Errorf("store: account: %w", err)
	}
	a.CreatedAt = time.UnixMilli(created)
	return a, nil
}

// CreateToken stores a token by the hash of its secret (the secret itself is
// never stored).
func (s *Store) CreateToken(ctx context.Context, accountID int64, kind, hash, csrf string, expires time.Time) error {
	defer s.wroteUnlisted() // no list shows accounts without bots, or tokens
	_, err := s.w.ExecContext(ctx, s.q(`INSERT INTO tokens (hash, account_id, kind, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`),
		hash, accountID, kind, csrf, now(), expires.UnixMilli())
	if err != nil {
		return fmt.Errorf("store: create token: %w", err)
	}
	return nil
}

// TokenAccount returns the account an unexpired token of this kind belongs
// to, and the token's CSRF secret.
func (s *Store) TokenAccount(ctx context.Context, hash, kind string) (Account, string, error) {
	var a Account
	var created int64
	var csrf string
	// One query for both (every authenticated request asks).
	err := s.r.QueryRowContext(ctx, s.q(`SELECT a.id, a.handle, a.password_hash, a.created_at, t.csrf FROM tokens t JOIN accounts a ON a.id = t.account_id
  WHERE t.hash = ? AND t.kind = ? AND t.expires_at > ?`), hash, kind, now()).Scan(&a.ID, &a.Handle, &a.PasswordHash, &created, &csrf)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, "", ErrNotFound
	}
	if err != nil {
		return Account{}, "", fmt.Errorf("store: token: %w", err)
	}
	a.CreatedAt = time.UnixMilli(created)
	return a, csrf, nil
}

// DeleteToken revokes a token.
func (s *Store) DeleteToken(ctx context.Context, hash string) error {
	defer s.wroteUnlisted() // no list shows accounts without bots, or tokens
	_, err := s.w.ExecContext(ctx, s.q(`DELETE FROM tokens WHERE hash = ?`), hash)
	if err != nil {
		return fmt.Errorf("store: delete token: %w", err)
	}
	return nil
}

// PurgeTokens deletes the API tokens and sessions that expired at or before
// t (they are refused from then on anyway) and reports how many it deleted.
func (s *Store) PurgeTokens(ctx context.Context, t time.Time) (int64, error) {
	defer s.wroteUnlisted() // no list shows accounts without bots, or tokens
	res, err := s.w.ExecContext(ctx, s.q(`DELETE FROM tokens WHERE expires_at <= ?`), t.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("store: purge tokens: %w", err)
	}
	return res.RowsAffected()
}
