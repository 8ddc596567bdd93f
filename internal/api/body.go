package api

import (
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/arenabots/arena/internal/core"
)

// The request bodies the API reads, all through this file (but an upload's
// module: readModule has its own size and multipart rules). A route says
// which it takes when it is registered (routes); the rule is checked before
// its handler runs, so no handler can forget it:
//
//   - bodyNone: any body is refused (400), unread: a client sending one
//     believes it asks for something the endpoint does not do.
//   - bodyJSON: a JSON object of known fields, at most maxJSONBody bytes;
//     the handler decodes it with readJSON (or readCredentials).
//   - bodyOwn: the handler reads the body itself (the upload; a token
//     request, which takes credentials only when it carries no token).
type bodyRule int

const (
	bodyNone bodyRule = iota
	bodyJSON
	bodyOwn
)

// checkBody applies a route's rule before its handler runs.
func checkBody(r *http.Request, rule bodyRule) error {
	switch rule {
	case bodyNone:
		return refuseBody(r)
	case bodyJSON:
		return limitBody(r, maxJSONBody)
	}
	return nil
}

// refuseBody answers 400 to a request with a body, reading at most one byte
// of it (a 40 MiB body is refused by its Content-Length alone).
func refuseBody(r *http.Request) error {
	has := r.ContentLength > 0
	if r.ContentLength < 0 && r.Body != nil { // chunked: is there a first byte?
		var one [1]byte
		n, _ := io.ReadFull(r.Body, one[:])
		has = n > 0
	}
	if has {
		return Errorf(http.StatusBadRequest, "%s %s takes no request body (see docs/api.md)", truncate(r.Method, 16), r.URL.Path)
	}
	return nil
}

// limitBody refuses a body whose Content-Length is over limit before any of
// it is read (413), and bounds what is read of one sent without a length.
func limitBody(r *http.Request, limit int64) error {
	if r.ContentLength > limit {
		return Errorf(http.StatusRequestEntityTooLarge, "request body too large: the limit is %d bytes", limit)
	}
	r.Body = http.MaxBytesReader(nil, r.Body, limit)
	return nil
}

// readJSON decodes a bodyJSON route's body into dst: Content-Type
// application/json (or none), one object of dst's known fields, nothing
// after it.
func readJSON(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return Errorf(http.StatusUnsupportedMediaType, "send a JSON body with Content-Type: application/json")
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	return core.DecodeStrict(body, dst)
}

// readCredentials reads a sign-up or log-in: a JSON body, or the form a
// browser posts without scripts, with the fields handle and password only.
func readCredentials(r *http.Request) (core.Credentials, error) {
	if err := checkOrigin(r); err != nil {
		return core.Credentials{}, err
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/x-www-form-urlencoded" {
		var c core.Credentials
		if err := readJSON(r, &c); err != nil {
			return c, err
		}
		return c, core.CheckCredentials(c)
	}
	if err := r.ParseForm(); err != nil {
		return core.Credentials{}, formError(err)
	}
	if len(r.PostForm) == 1 && !r.PostForm.Has("handle") {
		for k := range r.PostForm { // the one key: curl -d '{"handle":...}' sends JSON as a form
			if strings.HasPrefix(strings.TrimSpace(k), "{") {
				return core.Credentials{}, Errorf(http.StatusUnsupportedMediaType, "the body is JSON sent as a form: add the header Content-Type: application/json")
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.PostForm)) {
		if k != "handle" && k != "password" {
			return core.Credentials{}, Errorf(http.StatusBadRequest, "bad form: unknown field %q (handle and password only)", truncate(k, 32))
		}
	}
	c := core.Credentials{Handle: r.PostForm.Get("handle"), Password: r.PostForm.Get("password")}
	return c, core.CheckCredentials(c)
}

// formError keeps a too-large form a 413, like a too-large JSON body.
func formError(err error) error {
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return err
	}
	return Errorf(http.StatusBadRequest, "bad form")
}
