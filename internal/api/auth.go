package api

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/store"
)

const (
	csrfHeader = "X-CSRF-Token"
	csrfField  = "csrf"
)

// startSession starts a browser session: an HttpOnly, Secure, SameSite
// cookie, and a CSRF token the pages send back with every state-changing
// request.
func (a *API) startSession(ctx context.Context, w http.ResponseWriter, acc store.Account) (string, error) {
	secret, csrf, err := a.c.NewSession(ctx, acc)
	if err != nil {
		return "", err
	}
	http.SetCookie(w, &http.Cookie{Name: core.SessionCookie, Value: secret, Path: "/", MaxAge: int(core.SessionTTL.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
	return csrf, nil
}

// mustAuth requires a caller; for a state-changing request authenticated by
// a session cookie it also requires the CSRF token (header, or the form
// field given as formCSRF).
func (a *API) mustAuth(r *http.Request, formCSRF string) (core.Caller, error) {
	c, ok, err := a.c.Who(r)
	if err != nil {
		return core.Caller{}, err
	}
	if !ok {
		return core.Caller{}, core.ErrLogIn
	}
	if c.Session != "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := checkOrigin(r); err != nil {
			return core.Caller{}, err
		}
		got := r.Header.Get(csrfHeader)
		if got == "" {
			got = formCSRF
		}
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(c.CSRF)) != 1 {
			return core.Caller{}, Errorf(http.StatusForbidden, "missing or wrong CSRF token (send the session's token in the %s header or the %q form field)", csrfHeader, csrfField)
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
