package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/arenabots/arena/internal/store"
)

// Accounts, sessions and API tokens. A browser session is a cookie with a
// random secret (SessionCookie) and a CSRF token the pages send back; an API
// token goes in Authorization: Bearer. The store keeps only their hashes.

const (
	// SessionCookie is the name of the browser session's cookie.
	SessionCookie = "arena_session"
	// SessionTTL and TokenTTL are how long sessions and API tokens last.
	SessionTTL = 30 * 24 * time.Hour
	TokenTTL   = 365 * 24 * time.Hour
)

var (
	// HandlePattern is the rule of a handle (docs/api.md).
	HandlePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,23}$`)
	reserved      = map[string]bool{HouseHandle: true, "admin": true, "root": true, "api": true, "arena": true, "system": true, "anonymous": true}
)

// Credentials is the body of sign-up and log-in.
type Credentials struct {
	Handle   string `json:"handle"`
	Password string `json:"password"`
}

// checkHandle says what is wrong with a handle, if anything.
func checkHandle(h string) error {
	if strings.HasPrefix(h, "@") {
		return Errorf(http.StatusBadRequest, "handle: give it without the @")
	}
	if !HandlePattern.MatchString(h) {
		return Errorf(http.StatusBadRequest, "handle: 2 to 24 characters: lower-case letters, digits, - and _, starting with a letter or digit")
	}
	if reserved[h] {
		return Errorf(http.StatusConflict, "handle: %q is reserved", h)
	}
	return nil
}

// checkPassword bounds passwords: bcrypt reads at most 72 bytes.
func checkPassword(p string) error {
	if len(p) < 8 || len(p) > 72 {
		return Errorf(http.StatusBadRequest, "password: 8 to 72 bytes")
	}
	return nil
}

// CheckCredentials says what is wrong with a handle or password, if anything.
func CheckCredentials(c Credentials) error {
	if err := checkHandle(c.Handle); err != nil {
		return err
	}
	return checkPassword(c.Password)
}

// DecodeCredentials reads a sign-up or log-in body.
func DecodeCredentials(body []byte) (Credentials, error) {
	var c Credentials
	if err := DecodeStrict(body, &c); err != nil {
		return c, err
	}
	return c, CheckCredentials(c)
}

func randomToken(prefix string) string {
	var b [32]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func tokenHash(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// dummyHash makes a log-in for an unknown handle cost what a wrong password
// costs, so timing does not tell which handles exist.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("arena-dummy-password"), bcrypt.DefaultCost)

// Signup makes an account of checked credentials.
func (c *Core) Signup(ctx context.Context, cr Credentials) (store.Account, error) {
	if err := CheckCredentials(cr); err != nil {
		return store.Account{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(cr.Password), bcrypt.DefaultCost)
	if err != nil {
		return store.Account{}, err
	}
	acc, err := c.st.CreateAccount(ctx, cr.Handle, string(hash))
	if errors.Is(err, store.ErrExists) {
		return store.Account{}, Errorf(http.StatusConflict, "handle %q is taken", cr.Handle)
	}
	if err != nil {
		return store.Account{}, err
	}
	c.log.Info("account created", "handle", acc.Handle)
	return acc, nil
}

// Login checks a handle and password.
func (c *Core) Login(ctx context.Context, cr Credentials) (store.Account, error) {
	acc, err := c.st.AccountByHandle(ctx, cr.Handle)
	if errors.Is(err, store.ErrNotFound) {
		bcrypt.CompareHashAndPassword(dummyHash, []byte(cr.Password))
		return store.Account{}, Errorf(http.StatusUnauthorized, "wrong handle or password")
	}
	if err != nil {
		return store.Account{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(acc.PasswordHash), []byte(cr.Password)) != nil {
		return store.Account{}, Errorf(http.StatusUnauthorized, "wrong handle or password")
	}
	return acc, nil
}

// NewSession starts a browser session for acc: the cookie's secret, and the
// CSRF token the pages send back with every state-changing request.
func (c *Core) NewSession(ctx context.Context, acc store.Account) (secret, csrf string, err error) {
	secret, csrf = randomToken("s_"), randomToken("c_")
	if err := c.st.CreateToken(ctx, acc.ID, store.TokenSession, tokenHash(secret), csrf, time.Now().Add(SessionTTL)); err != nil {
		return "", "", err
	}
	return secret, csrf, nil
}

// NewAPIToken makes an API token for acc.
func (c *Core) NewAPIToken(ctx context.Context, acc store.Account) (string, error) {
	t := randomToken("arena_")
	if err := c.st.CreateToken(ctx, acc.ID, store.TokenAPI, tokenHash(t), "", time.Now().Add(TokenTTL)); err != nil {
		return "", err
	}
	return t, nil
}

// EndSession ends the caller's browser session, if it has one.
func (c *Core) EndSession(ctx context.Context, who Caller) error {
	if who.Session == "" {
		return nil
	}
	return c.st.DeleteToken(ctx, tokenHash(who.Session))
}

// Caller is who makes a request: an account, or nobody (the zero Caller).
type Caller struct {
	Account store.Account
	Session string // the session secret, when authenticated by cookie
	CSRF    string // the session's CSRF token
}

// LoggedIn says whether the caller has an account.
func (c Caller) LoggedIn() bool { return c.Account.ID != 0 }

// owns says whether the caller owns what accountID owns.
func (c Caller) owns(accountID int64) bool { return c.LoggedIn() && c.Account.ID == accountID }

// Who identifies the caller of r: a Bearer token, else a session cookie,
// else nobody (ok false). A bad Bearer token is an error, not anonymity.
func (c *Core) Who(r *http.Request) (who Caller, ok bool, err error) {
	if h := r.Header.Get("Authorization"); h != "" {
		t, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || t == "" {
			return Caller{}, false, Errorf(http.StatusUnauthorized, "Authorization: want \"Bearer TOKEN\"")
		}
		acc, _, err := c.st.TokenAccount(r.Context(), tokenHash(t), store.TokenAPI)
		if errors.Is(err, store.ErrNotFound) {
			return Caller{}, false, Errorf(http.StatusUnauthorized, "unknown or expired token")
		}
		if err != nil {
			return Caller{}, false, err
		}
		return Caller{Account: acc}, true, nil
	}
	ck, err := r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return Caller{}, false, nil
	}
	acc, csrf, err := c.st.TokenAccount(r.Context(), tokenHash(ck.Value), store.TokenSession)
	if errors.Is(err, store.ErrNotFound) {
		return Caller{}, false, nil
	}
	if err != nil {
		return Caller{}, false, err
	}
	return Caller{Account: acc, Session: ck.Value, CSRF: csrf}, true, nil
}

// ErrLogIn is the refusal of a request that needs an account.
var ErrLogIn = Errorf(http.StatusUnauthorized, "log in first (session cookie or Authorization: Bearer TOKEN)")

// MeJSON is the caller's account: its handle, its bots, and for a browser
// session its CSRF token.
type MeJSON struct {
	Handle string    `json:"handle"`
	Bots   []BotJSON `json:"bots"`
	CSRF   string    `json:"csrf,omitempty"`
	// Admin is set for an operator of the server (IsAdmin): the site
	// links its /admin page.
	Admin bool `json:"admin,omitempty"`
}

// Me is the caller's account.
func (c *Core) Me(ctx context.Context, who Caller) (MeJSON, error) {
	if !who.LoggedIn() {
		return MeJSON{}, ErrLogIn
	}
	bots, err := c.st.BotsOf(ctx, who.Account.ID)
	if err != nil {
		return MeJSON{}, err
	}
	return MeJSON{Handle: "@" + who.Account.Handle, Bots: botsJSON(bots), CSRF: who.CSRF, Admin: c.IsAdmin(who)}, nil
}
