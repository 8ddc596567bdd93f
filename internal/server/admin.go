package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/store"
)

// The operator's endpoints: the workers' standing in the determinism votes
// (majority.go), and clearing a worker out of rotation. They answer only a
// bearer token kept in DATA/admin.token (mode 0600, made at the first
// start): whoever holds the data directory is the operator. `arena
// workers` reads it.

// AdminTokenFile, in the data directory, holds the operator's token.
const AdminTokenFile = "admin.token"

// adminToken reads the operator's token, making it on first use.
func adminToken(dir string) (string, error) {
	path := filepath.Join(dir, AdminTokenFile)
	if data, err := os.ReadFile(path); err == nil {
		if tok := strings.TrimSpace(string(data)); len(tok) == 64 {
			return tok, nil
		}
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return tok, nil
}

// AdminWorker is one worker in GET /api/v1/admin/workers: its standing,
// the ids it announces under now, and when it last did.
type AdminWorker = core.AdminWorker

func (s *Server) adminRoutes(mux *http.ServeMux) error {
	token, err := adminToken(s.opt.DataDir)
	if err != nil {
		return err
	}
	admin := func(h func(w http.ResponseWriter, r *http.Request) (int, any)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			status, v := http.StatusOK, any(nil)
			auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			switch {
			case !ok || subtle.ConstantTimeCompare([]byte(auth), []byte(token)) != 1:
				w.Header().Set("WWW-Authenticate", `Bearer realm="arena admin"`)
				status, v = http.StatusUnauthorized, errorBody("this endpoint is the operator's: send the token of DATA/"+AdminTokenFile)
			case hasBody(r):
				status, v = http.StatusBadRequest, errorBody(r.Method+" "+r.URL.Path+" takes no request body")
			default:
				status, v = h(w, r)
			}
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(v)
		}
	}
	mux.HandleFunc("GET /api/v1/admin/workers", admin(func(w http.ResponseWriter, r *http.Request) (int, any) {
		return http.StatusOK, struct {
			StrikesOut int           `json:"strikes_out"`
			Workers    []AdminWorker `json:"workers"`
		}{StrikesOut, s.AdminWorkers()}
	}))
	mux.HandleFunc("POST /api/v1/admin/workers/{name}/clear", admin(func(w http.ResponseWriter, r *http.Request) (int, any) {
		name := r.PathValue("name")
		ok, err := s.rota.clear(name)
		switch {
		case err != nil:
			s.log.Error("clear worker", "worker", name, "err", err)
			return http.StatusInternalServerError, errorBody("internal error")
		case !ok:
			return http.StatusNotFound, errorBody("no worker " + quoteName(name) + " has lost a vote")
		}
		s.log.Warn("worker cleared by the operator: back in rotation", "worker", name)
		return http.StatusOK, struct {
			Cleared string `json:"cleared"`
		}{name}
	}))
	return nil
}

// AdminWorkers merges the standings with the announcing workers, by name
// (core.Platform).
func (s *Server) AdminWorkers() []AdminWorker {
	byName := map[string]*AdminWorker{}
	var out []AdminWorker
	for _, st := range s.rota.list() {
		byName[st.Name] = &AdminWorker{WorkerStanding: st, IDs: []string{}}
	}
	for _, info := range s.roster.List() {
		name := info.Name
		if name == "" {
			name = info.ID
		}
		w := byName[name]
		if w == nil {
			w = &AdminWorker{WorkerStanding: WorkerStanding{Name: name, Disagreed: []int64{}}, IDs: []string{}}
			byName[name] = w
		}
		w.IDs = append(w.IDs, info.ID)
		if seen := info.LastSeen.UTC(); w.LastSeen == nil || seen.After(*w.LastSeen) {
			w.LastSeen = &seen
		}
	}
	for _, w := range byName {
		if w.Disagreed == nil {
			w.Disagreed = []int64{}
		}
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b AdminWorker) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ClearWorker puts a worker back in rotation with no strikes (core.Platform).
func (s *Server) ClearWorker(name string) (bool, error) { return s.rota.clear(name) }

// resolveAdmins finds the accounts Options.Admins names. Each must exist
// already: a handle named before its account is made would go to whoever
// signs it up first.
func (s *Server) resolveAdmins(ctx context.Context) ([]int64, error) {
	var ids []int64
	for _, h := range s.opt.Admins {
		h = strings.TrimPrefix(strings.TrimSpace(h), "@")
		if h == core.HouseHandle {
			return nil, fmt.Errorf("--admin %s: the house account cannot log in", h)
		}
		acc, err := s.store.AccountByHandle(ctx, h)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("--admin %s: no such account; sign it up on the site first, then start the server with --admin", quoteName(h))
		} else if err != nil {
			return nil, fmt.Errorf("--admin %s: %w", quoteName(h), err)
		}
		ids = append(ids, acc.ID)
	}
	return ids, nil
}

func errorBody(msg string) any {
	return struct {
		Error string `json:"error"`
	}{msg}
}

// quoteName bounds and quotes a name taken from a request path.
func quoteName(name string) string {
	if len(name) > 64 {
		name = name[:64] + "..."
	}
	return fmt.Sprintf("%q", name)
}

// hasBody reports whether a request sent a body, reading at most a byte.
func hasBody(r *http.Request) bool {
	if r.ContentLength != 0 && r.ContentLength != -1 {
		return true
	}
	if r.ContentLength == -1 && r.Body != nil {
		var one [1]byte
		n, err := io.ReadFull(r.Body, one[:])
		return n > 0 || (err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF))
	}
	return false
}
