package api

import (
	"net/http"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/store"
)

// Accounts, sessions and tokens: sign-up, log-in, log-out, API tokens, and
// who the caller is.

func (a *API) signup(w http.ResponseWriter, r *http.Request) error {
	if !a.signups.Allow(a.clientIP(r)) {
		return Errorf(http.StatusTooManyRequests, "too many sign-ups from your address; wait a minute")
	}
	c, err := readCredentials(r)
	if err != nil {
		return err
	}
	acc, err := a.c.Signup(r.Context(), c)
	if err != nil {
		return err
	}
	tok, err := a.c.NewAPIToken(r.Context(), acc)
	if err != nil {
		return err
	}
	csrf, err := a.startSession(r.Context(), w, acc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"token": tok, "handle": "@" + acc.Handle, "csrf": csrf})
	return nil
}

func (a *API) login(w http.ResponseWriter, r *http.Request) error {
	if !a.logins.Allow(a.clientIP(r)) {
		return Errorf(http.StatusTooManyRequests, "too many log-in attempts from your address; wait a minute")
	}
	c, err := readCredentials(r)
	if err != nil {
		return err
	}
	acc, err := a.c.Login(r.Context(), c)
	if err != nil {
		return err
	}
	csrf, err := a.startSession(r.Context(), w, acc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"handle": "@" + acc.Handle, "csrf": csrf})
	return nil
}

func (a *API) logout(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	if err := a.c.EndSession(r.Context(), c); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: core.SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	return nil
}

// newToken makes an API token for the caller, or for the credentials in the
// body when the request carries none.
func (a *API) newToken(w http.ResponseWriter, r *http.Request) error {
	var acc store.Account
	if _, ok, err := a.c.Who(r); err != nil {
		return err
	} else if ok {
		// Authenticated already: the request takes no body.
		c, err := a.mustAuth(r, "")
		if err != nil {
			return err
		}
		if err := refuseBody(r); err != nil {
			return err
		}
		acc = c.Account
	} else {
		if !a.logins.Allow(a.clientIP(r)) {
			return Errorf(http.StatusTooManyRequests, "too many log-in attempts from your address; wait a minute")
		}
		if err := limitBody(r, maxJSONBody); err != nil {
			return err
		}
		c, err := readCredentials(r)
		if err != nil {
			return err
		}
		if acc, err = a.c.Login(r.Context(), c); err != nil {
			return err
		}
	}
	tok, err := a.c.NewAPIToken(r.Context(), acc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"token": tok, "handle": "@" + acc.Handle})
	return nil
}

func (a *API) me(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	me, err := a.c.Me(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, me)
	return nil
}
