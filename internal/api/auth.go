package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/arenabots/arena/internal/store"
)

const (
	sessionCookie = "arena_session"
	sessionTTL    = 30 * 24 * time.Hour
	tokenTTL      = 365 * 24 * time.Hour
	csrfHeader    = "X-CSRF-Token"
	csrfField     = "csrf"
)

var (
	handlePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,23}$`)
	reserved      = map[string]bool{HouseHandle: true, "admin": true, "root": true, "api": true, "arena": true, "system": true, "anonymous": true}
)

// checkHandle says what is wrong with a handle, if anything.
func checkHandle(h string) error {
	if strings.HasPrefix(h, "@") {
		return Errorf(http.StatusBadRequest, "handle: give it without the @")
	}
	if !handlePattern.MatchString(h) {
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

func checkLogin(ctx context.Context, st *store.Store, handle, password string) (store.Account, error) {
	acc, err := st.AccountByHandle(ctx, handle)
	if errors.Is(err, store.ErrNotFound) {
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return store.Account{}, Errorf(http.StatusUnauthorized, "wrong handle or password")
	}
	if err != nil {
		return store.Account{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(acc.PasswordHash), []byte(password)) != nil {
		return store.Account{}, Errorf(http.StatusUnauthorized, "wrong handle or password")
	}
	return acc, nil
}

// session starts a browser session: an HttpOnly, Secure, SameSite cookie,
// and a CSRF token the pages send back with every state-changing request.
func (a *API) startSession(ctx context.Context, w http.ResponseWriter, acc store.Account) (string, error) {
	secret := randomToken("s_")
	csrf := randomToken("c_")
	if err := a.st.CreateToken(ctx, acc.ID, store.TokenSession, tokenHash(secret), csrf, time.Now().Add(sessionTTL)); err != nil {
		return "", err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: secret, Path: "/", MaxAge: int(sessionTTL / time.Second),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
	return csrf, nil
}

func (a *API) newAPIToken(ctx context.Context, acc store.Account) (string, error) {
	t := randomToken("arena_")
	if err := a.st.CreateToken(ctx, acc.ID, store.TokenAPI, tokenHash(t), "", time.Now().Add(tokenTTL)); err != nil {
		return "", err
	}
	return t, nil
}

// caller is who made a request.
type caller struct {
	acc     store.Account
	session string // the session secret, when authenticated by cookie
	csrf    string
}

// who identifies the caller: a Bearer token, else a session cookie, else
// nobody (ok false). A bad Bearer token is an error, not anonymity.
func (a *API) who(r *http.Request) (caller, bool, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		t, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || t == "" {
			return caller{}, false, Errorf(http.StatusUnauthorized, "Authorization: want \"Bearer TOKEN\"")
		}
		acc, _, err := a.st.TokenAccount(r.Context(), tokenHash(t), store.TokenAPI)
		if errors.Is(err, store.ErrNotFound) {
			return caller{}, false, Errorf(http.StatusUnauthorized, "unknown or expired token")
		}
		if err != nil {
			return caller{}, false, err
		}
		return caller{acc: acc}, true, nil
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return caller{}, false, nil
	}
	acc, csrf, err := a.st.TokenAccount(r.Context(), tokenHash(c.Value), store.TokenSession)
	if errors.Is(err, store.ErrNotFound) {
		return caller{}, false, nil
	}
	if err != nil {
		return caller{}, false, err
	}
	return caller{acc: acc, session: c.Value, csrf: csrf}, true, nil
}

// mustAuth requires a caller; for a state-changing request authenticated by
// a session cookie it also requires the CSRF token (header, or the form
// field given as formCSRF).
func (a *API) mustAuth(r *http.Request, formCSRF string) (caller, error) {
	c, ok, err := a.who(r)
	if err != nil {
		return caller{}, err
	}
	if !ok {
		return caller{}, Errorf(http.StatusUnauthorized, "log in first (session cookie or Authorization: Bearer TOKEN)")
	}
	if c.session != "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := checkOrigin(r); err != nil {
			return caller{}, err
		}
		got := r.Header.Get(csrfHeader)
		if got == "" {
			got = formCSRF
		}
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(c.csrf)) != 1 {
			return caller{}, Errorf(http.StatusForbidden, "missing or wrong CSRF token (send the session's token in the %s header or the %q form field)", csrfHeader, csrfField)
		}
	}
	return c, nil
}

// checkOrigin refuses a cross-site browser request: when the browser says
// where the request comes from, it must be this host.
func checkOrigin(r *http.Request) error {
	o := r.Header.Get("Origin")
	if o == "" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || u.Host != r.Host {
		return Errorf(http.StatusForbidden, "cross-origin request refused")
	}
	return nil
}
