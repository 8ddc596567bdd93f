package web

import (
	"crypto/subtle"
	"net/http"

	"github.com/arenabots/arena/internal/core"
)

// The operator's page, /admin: the workers' standing in the determinism
// votes (strikes, the matches they lost, in or out of rotation, when each
// last announced itself) and a Clear button for each that lost a vote.
// It is drawn on the server, for the accounts the server names as its
// operators (core.IsAdmin: `arena serve --admin`); anyone else gets the
// 403 page. Clearing is a form post with the session's CSRF token, from
// this site only. Worker names are the worker hosts' own text: the
// template escapes them.

// adminData is what the operator's page shows.
type adminData struct {
	Workers    []core.AdminWorker
	StrikesOut int
	CSRF       string
	Message    string // what the last clear did
	Error      string
}

// maxAdminForm bounds the Clear form's body: a token and a name.
const maxAdminForm = 4 << 10

// admin finds the caller and answers 403 unless it is an operator.
func (s *Site) admin(w http.ResponseWriter, r *http.Request) (core.Caller, bool) {
	p := s.platform()
	if p == nil {
		s.platformFail(w, r, errNoPlatform, "")
		return core.Caller{}, false
	}
	who, _, err := p.Who(r)
	if err != nil && status(err) >= 500 {
		s.platformFail(w, r, err, "")
		return core.Caller{}, false
	}
	if err != nil || !p.IsAdmin(who) {
		s.fail(w, r, http.StatusForbidden, "This page is the operator's: log in with an account the server names with --admin.")
		return core.Caller{}, false
	}
	return who, true
}

func (s *Site) adminPage(w http.ResponseWriter, r *http.Request) {
	who, ok := s.admin(w, r)
	if !ok {
		return
	}
	s.showAdmin(w, r, who, http.StatusOK, adminData{})
}

func (s *Site) showAdmin(w http.ResponseWriter, r *http.Request, who core.Caller, code int, d adminData) {
	workers, err := s.platform().AdminWorkers(who)
	if err != nil {
		s.platformFail(w, r, err, "")
		return
	}
	d.Workers, d.StrikesOut, d.CSRF = workers, core.StrikesOut, who.CSRF
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, code, "admin", page{Title: "Workers (operator)", Data: d})
}

// adminClear puts a worker back in rotation: POST /admin/clear with the
// fields csrf and worker.
func (s *Site) adminClear(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxAdminForm)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	who, ok := s.admin(w, r)
	if !ok {
		return
	}
	// The session's CSRF token, and a browser's word that the form is
	// this site's: a page elsewhere cannot clear a worker with the
	// operator's cookie.
	if !sameOrigin(r) || who.CSRF == "" || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(who.CSRF)) != 1 {
		s.fail(w, r, http.StatusForbidden, "The form did not come from this site's page (or your session changed): reload the page and try again.")
		return
	}
	name := r.PostForm.Get("worker")
	if err := s.platform().ClearWorker(who, name); err != nil {
		if status(err) >= 500 {
			s.platformFail(w, r, err, "")
			return
		}
		s.showAdmin(w, r, who, status(err), adminData{Error: publicMessage(err)})
		return
	}
	s.showAdmin(w, r, who, http.StatusOK, adminData{Message: "Worker " + core.Truncate(name, 64) + " is back in rotation, its strikes cleared."})
}
