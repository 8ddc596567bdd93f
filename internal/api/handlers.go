package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/visitors"
	"github.com/arenabots/arena/rating"
)

// Credentials is the body of sign-up and log-in.
type Credentials struct {
	Handle   string `json:"handle"`
	Password string `json:"password"`
}

// DecodeStrict decodes one JSON value of dst's shape, refusing unknown
// fields and trailing data.
func DecodeStrict(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return Errorf(http.StatusBadRequest, "bad JSON body: %s", cleanJSONError(err))
	}
	if dec.More() {
		return Errorf(http.StatusBadRequest, "bad JSON body: data after the object")
	}
	return nil
}

// cleanJSONError keeps decoder messages short and free of Go type names.
func cleanJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	case errors.Is(err, io.EOF):
		return "empty body"
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120]
	}
	return strings.TrimPrefix(msg, "json: ")
}

// DecodeCredentials reads a sign-up or log-in body.
func DecodeCredentials(body []byte) (Credentials, error) {
	var c Credentials
	if err := DecodeStrict(body, &c); err != nil {
		return c, err
	}
	return c, checkCredentials(c)
}

// checkCredentials says what is wrong with a handle or password, if anything.
func checkCredentials(c Credentials) error {
	if err := checkHandle(c.Handle); err != nil {
		return err
	}
	return checkPassword(c.Password)
}

func (a *API) signup(w http.ResponseWriter, r *http.Request) error {
	if !a.signups.Allow(a.clientIP(r)) {
		return Errorf(http.StatusTooManyRequests, "too many sign-ups from your address; wait a minute")
	}
	c, err := readCredentials(r)
	if err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(c.Password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	acc, err := a.st.CreateAccount(r.Context(), c.Handle, string(hash))
	if errors.Is(err, store.ErrExists) {
		return Errorf(http.StatusConflict, "handle %q is taken", c.Handle)
	}
	if err != nil {
		return err
	}
	tok, err := a.newAPIToken(r.Context(), acc)
	if err != nil {
		return err
	}
	csrf, err := a.startSession(r.Context(), w, acc)
	if err != nil {
		return err
	}
	a.log.Info("account created", "handle", acc.Handle)
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
	acc, err := checkLogin(r.Context(), a.st, c.Handle, c.Password)
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
	if c.session != "" {
		if err := a.st.DeleteToken(r.Context(), tokenHash(c.session)); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	return nil
}

// newToken makes an API token for the caller, or for the credentials in the
// body when the request carries none.
func (a *API) newToken(w http.ResponseWriter, r *http.Request) error {
	var acc store.Account
	if _, ok, err := a.who(r); err != nil {
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
		acc = c.acc
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
		if acc, err = checkLogin(r.Context(), a.st, c.Handle, c.Password); err != nil {
			return err
		}
	}
	tok, err := a.newAPIToken(r.Context(), acc)
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
	bots, err := a.st.BotsOf(r.Context(), c.acc.ID)
	if err != nil {
		return err
	}
	out := map[string]any{"handle": "@" + c.acc.Handle, "bots": botsJSON(bots)}
	if c.session != "" {
		out["csrf"] = c.csrf
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GameJSON describes a game and its rules' parameters.
type GameJSON struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Players   []int            `json:"players"`
	Params    []ParamJSON      `json:"params"`
	Fuel      game.FuelPolicy  `json:"-"`
	FuelJSON  map[string]int64 `json:"fuel"`
	Ties      bool             `json:"ties"`
	HouseBots []HouseBotJSON   `json:"house_bots"`
	Rules     string           `json:"rules"`      // the rules' file in the repository
	RulesPage string           `json:"rules_page"` // the site's page of them, from the server's root
}

// ParamJSON is one game parameter.
type ParamJSON struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// HouseBotJSON is one house bot.
type HouseBotJSON struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

func gameJSON(g game.Game) GameJSON {
	info := g.Info()
	fuel := info.Fuel
	if fuel == (game.FuelPolicy{}) {
		fuel = game.DefaultFuel
	}
	out := GameJSON{ID: info.ID, Name: info.Name, Players: info.Players, Ties: info.Ties, Params: []ParamJSON{}, HouseBots: []HouseBotJSON{},
		FuelJSON: map[string]int64{"per_turn": fuel.PerTurn, "cap": fuel.Cap, "per_game": fuel.PerGame, "per_answer": fuel.PerAnswer},
		Rules:    "docs/games/" + info.ID + ".md", RulesPage: "/rules/" + info.ID}
	for _, p := range info.Params {
		out.Params = append(out.Params, ParamJSON{Name: p.Name, Default: p.Default, Doc: p.Doc})
	}
	for _, hb := range g.HouseBots() {
		out.HouseBots = append(out.HouseBots, HouseBotJSON{Name: hb.Name, Doc: hb.Doc})
	}
	return out
}

func (a *API) games(w http.ResponseWriter, r *http.Request) error {
	var out []GameJSON
	for _, g := range a.opt.Games {
		out = append(out, gameJSON(g))
	}
	writeJSON(w, http.StatusOK, map[string]any{"games": out})
	return nil
}

func (a *API) lookupGame(id string) (game.Game, error) { return findGame(a.opt.Games, id) }

// findGame finds the game id among games, or answers 404.
func findGame(games []game.Game, id string) (game.Game, error) {
	for _, g := range games {
		if g.Info().ID == id {
			return g, nil
		}
	}
	return nil, Errorf(http.StatusNotFound, "no game %q (GET /api/v1/games lists them)", truncate(id, 64))
}

func (a *API) game(w http.ResponseWriter, r *http.Request) error {
	g, err := a.lookupGame(r.PathValue("game"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, gameJSON(g))
	return nil
}

// LeaderRowJSON is one leaderboard line, as the seeds' tables show it.
type LeaderRowJSON struct {
	Rank    int64   `json:"rank"`
	Player  string  `json:"player"`
	Bot     string  `json:"bot"`
	BotID   int64   `json:"bot_id"`
	Rating  int     `json:"rating"`
	Matches int64   `json:"matches"`
	Mu      float64 `json:"mu"`
	Sigma   float64 `json:"sigma"`
}

// ParseLeaderCursor reads a leaderboard page cursor: "SCOREBITS.ID.RANK",
// the score's IEEE bits in hex.
func ParseLeaderCursor(s string) (*store.Cursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := Errorf(http.StatusBadRequest, "after: not a cursor from this API")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, bad
	}
	bits, err1 := strconv.ParseUint(parts[0], 16, 64)
	id, err2 := strconv.ParseInt(parts[1], 10, 64)
	rank, err3 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || id < 0 || rank < 0 {
		return nil, bad
	}
	score := float64frombits(bits)
	if score != score || score > 1e300 || score < -1e300 {
		return nil, bad
	}
	return &store.Cursor{Score: score, ID: id, Rank: rank}, nil
}

func leaderCursor(r store.LeaderRow) string {
	return fmt.Sprintf("%x.%d.%d", float64bits(r.Bot.Score), r.Bot.ID, r.Rank)
}

// ParseLimit reads a page size: 1 to pageMax, default pageDefault.
func ParseLimit(s string) (int, error) {
	if s == "" {
		return pageDefault, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > pageMax {
		return 0, Errorf(http.StatusBadRequest, "limit: a number from 1 to %d", pageMax)
	}
	return n, nil
}

// ParseID reads a positive id.
func ParseID(what, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, Errorf(http.StatusBadRequest, "%s: want a positive integer id", what)
	}
	return n, nil
}

func (a *API) leaderboard(w http.ResponseWriter, r *http.Request) error {
	g, err := a.lookupGame(r.PathValue("game"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	cur, err := ParseLeaderCursor(q.Get("after"))
	if err != nil {
		return err
	}
	limit, err := ParseLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	return a.cached(w, r, g.Info().ID, func(ctx context.Context) (any, error) {
		rows, err := a.st.Leaderboard(ctx, g.Info().ID, cur, limit)
		if err != nil {
			return nil, err
		}
		out := struct {
			Game string          `json:"game"`
			Rows []LeaderRowJSON `json:"rows"`
			Next string          `json:"next,omitempty"`
		}{Game: g.Info().ID, Rows: []LeaderRowJSON{}}
		for _, row := range rows {
			rt := rating.Rating{Mu: row.Bot.Mu, Sigma: row.Bot.Sigma}
			out.Rows = append(out.Rows, LeaderRowJSON{Rank: row.Rank, Player: "@" + row.Bot.Handle, Bot: row.Bot.Name, BotID: row.Bot.ID,
				Rating: rt.Display(), Matches: row.Bot.Matches, Mu: row.Bot.Mu, Sigma: row.Bot.Sigma})
		}
		if len(rows) == limit {
			out.Next = leaderCursor(rows[len(rows)-1])
		}
		return out, nil
	})
}

// BotJSON is a bot as the API shows it.
type BotJSON struct {
	ID            int64         `json:"id"`
	Game          string        `json:"game"`
	Name          string        `json:"name"`
	Player        string        `json:"player"`
	House         bool          `json:"house"`
	Rating        int           `json:"rating"`
	Mu            float64       `json:"mu"`
	Sigma         float64       `json:"sigma"`
	Matches       int64         `json:"matches"`
	Retired       bool          `json:"retired"`
	ActiveVersion int64         `json:"active_version,omitempty"`
	Versions      []VersionJSON `json:"versions,omitempty"`
	Created       time.Time     `json:"created"`
}

// VersionJSON is one upload. Message is the check's verdict, shown to the
// owner only.
type VersionJSON struct {
	ID         int64     `json:"id"`
	Number     int64     `json:"number"`
	SHA256     string    `json:"sha256,omitempty"`
	Size       int64     `json:"size"`
	State      string    `json:"state"`
	Message    string    `json:"message,omitempty"`
	SmokeMatch int64     `json:"smoke_match,omitempty"`
	Created    time.Time `json:"created"`
	// ModuleDeleted: the version was replaced more than a day ago and its
	// module is no longer kept.
	ModuleDeleted bool `json:"module_deleted,omitempty"`
}

func botJSON(b store.Bot) BotJSON {
	return BotJSON{ID: b.ID, Game: b.Game, Name: b.Name, Player: "@" + b.Handle, House: b.Spec != "",
		Rating: rating.Rating{Mu: b.Mu, Sigma: b.Sigma}.Display(), Mu: b.Mu, Sigma: b.Sigma, Matches: b.Matches,
		Retired: b.Retired, Created: b.CreatedAt.UTC()}
}

func botsJSON(bs []store.Bot) []BotJSON {
	out := make([]BotJSON, 0, len(bs))
	for _, b := range bs {
		j := botJSON(b)
		j.ActiveVersion = 0
		out = append(out, j)
	}
	return out
}

func versionJSON(v store.Version, owner bool) VersionJSON {
	j := VersionJSON{ID: v.ID, Number: v.Number, SHA256: v.SHA256, Size: v.Size, State: v.State, SmokeMatch: v.SmokeMatch, Created: v.CreatedAt.UTC(), ModuleDeleted: v.Pruned}
	if owner {
		j.Message = v.Message
	}
	return j
}

func (a *API) player(w http.ResponseWriter, r *http.Request) error {
	h := strings.TrimPrefix(r.PathValue("handle"), "@")
	if !handlePattern.MatchString(h) {
		return Errorf(http.StatusNotFound, "no player %q", truncate(h, 64))
	}
	acc, err := a.st.AccountByHandle(r.Context(), h)
	if errors.Is(err, store.ErrNotFound) {
		return Errorf(http.StatusNotFound, "no player @%s", h)
	}
	if err != nil {
		return err
	}
	bots, err := a.st.BotsOf(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	c, _, err := a.who(r)
	if err != nil {
		return err
	}
	if c.acc.ID != acc.ID {
		// Others see the bots that have played: a bot none of whose
		// versions was ever accepted (a name tried once, a module refused)
		// is the owner's business, and it cannot be deleted.
		bots = slices.DeleteFunc(bots, func(b store.Bot) bool { return b.ActiveVersion == 0 })
	}
	writeJSON(w, http.StatusOK, map[string]any{"player": "@" + acc.Handle, "joined": acc.CreatedAt.UTC(), "bots": botsJSON(bots)})
	return nil
}

func (a *API) botByPath(r *http.Request) (store.Bot, error) {
	id, err := ParseID("bot", r.PathValue("id"))
	if err != nil {
		return store.Bot{}, err
	}
	b, err := a.st.Bot(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Bot{}, Errorf(http.StatusNotFound, "no bot %d", id)
	}
	return b, err
}

func (a *API) bot(w http.ResponseWriter, r *http.Request) error {
	b, err := a.botByPath(r)
	if err != nil {
		return err
	}
	c, _, err := a.who(r)
	if err != nil {
		return err
	}
	owner := c.acc.ID != 0 && c.acc.ID == b.AccountID
	vs, err := a.st.Versions(r.Context(), b.ID)
	if err != nil {
		return err
	}
	j := botJSON(b)
	j.ActiveVersion = b.ActiveVersion
	j.Versions = []VersionJSON{}
	for _, v := range vs {
		j.Versions = append(j.Versions, versionJSON(v, owner))
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

func (a *API) ratings(w http.ResponseWriter, r *http.Request) error {
	b, err := a.botByPath(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var before int64
	if s := q.Get("before"); s != "" {
		if before, err = ParseID("before", s); err != nil {
			return err
		}
	}
	limit, err := ParseLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	pts, err := a.st.RatingHistory(r.Context(), b.ID, before, limit)
	if err != nil {
		return err
	}
	type point struct {
		Match  int64     `json:"match"`
		Rating int       `json:"rating"`
		Mu     float64   `json:"mu"`
		Sigma  float64   `json:"sigma"`
		At     time.Time `json:"at"`
	}
	out := struct {
		Bot    int64   `json:"bot"`
		Points []point `json:"points"`
		Next   string  `json:"next,omitempty"`
	}{Bot: b.ID, Points: []point{}}
	for _, p := range pts {
		out.Points = append(out.Points, point{Match: p.MatchID, Rating: rating.Rating{Mu: p.Mu, Sigma: p.Sigma}.Display(), Mu: p.Mu, Sigma: p.Sigma, At: p.At.UTC()})
	}
	if len(pts) == limit {
		out.Next = strconv.FormatInt(pts[len(pts)-1].MatchID, 10)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) retire(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	b, err := a.botByPath(r)
	if err != nil {
		return err
	}
	if b.AccountID != c.acc.ID {
		return Errorf(http.StatusForbidden, "bot %d is not yours", b.ID)
	}
	if err := a.st.Retire(r.Context(), b.ID); err != nil {
		return err
	}
	b.Retired = true
	writeJSON(w, http.StatusOK, botJSON(b))
	return nil
}

var botNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)

// CheckBotName says what is wrong with a bot name, if anything.
func CheckBotName(name string) error {
	if !botNamePattern.MatchString(name) {
		return Errorf(http.StatusBadRequest, "bot name: 1 to 32 characters: letters, digits, '.', '-' and '_', starting with a letter or digit")
	}
	return nil
}

// readModule reads an upload: the raw module as the body (application/wasm
// or application/octet-stream), or a multipart form with the module in the
// field "file" (and the CSRF token in "csrf").
func readModule(r *http.Request) (wasm []byte, formCSRF string, err error) {
	body := http.MaxBytesReader(nil, r.Body, MaxUpload+64<<10)
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/wasm", "application/octet-stream", "":
		wasm, err = io.ReadAll(io.LimitReader(body, MaxUpload+1))
	case "multipart/form-data":
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, perr := mr.NextPart()
			if perr == io.EOF {
				break
			}
			if perr != nil {
				var mbe *http.MaxBytesError
				if errors.As(perr, &mbe) {
					return nil, "", perr
				}
				return nil, "", Errorf(http.StatusBadRequest, "bad multipart body")
			}
			switch part.FormName() {
			case csrfField:
				b, _ := io.ReadAll(io.LimitReader(part, 256))
				formCSRF = string(b)
			case "file":
				wasm, err = io.ReadAll(io.LimitReader(part, MaxUpload+1))
			}
			part.Close()
			if err != nil {
				break
			}
		}
	default:
		return nil, "", Errorf(http.StatusUnsupportedMediaType, "send the module as application/wasm, or as the field \"file\" of a multipart form")
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", err
		}
		// A body cut short inside a part, or a broken read: the client's fault.
		return nil, "", Errorf(http.StatusBadRequest, "the upload's body ended early or could not be read")
	}
	if len(wasm) > MaxUpload {
		return nil, "", Errorf(http.StatusRequestEntityTooLarge, "the module is larger than %d bytes", MaxUpload)
	}
	if len(wasm) == 0 {
		return nil, "", Errorf(http.StatusBadRequest, "no module in the request")
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, "", Errorf(http.StatusUnprocessableEntity, "not a WebAssembly module: a module starts with the bytes \\0asm (build for wasip1/wasm32-wasi, see the starter kits)")
	}
	return wasm, formCSRF, nil
}

// UploadJSON is the answer to an upload.
type UploadJSON struct {
	Bot     BotJSON     `json:"bot"`
	Version VersionJSON `json:"version"`
	Error   string      `json:"error,omitempty"`
	// Note says why nothing changed: the module is the bot's newest
	// version already (answered 200).
	Note string `json:"note,omitempty"`
}

func (a *API) upload(w http.ResponseWriter, r *http.Request) error {
	g, err := a.lookupGame(r.PathValue("game"))
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	if err := CheckBotName(name); err != nil {
		return err
	}
	// Authenticate before reading 32 MiB; CSRF of a form comes with the body.
	who, ok, err := a.who(r)
	if err != nil {
		return err
	} else if !ok {
		return Errorf(http.StatusUnauthorized, "log in first (session cookie or Authorization: Bearer TOKEN)")
	}
	if !a.uploads.Allow(a.clientIP(r)) {
		return Errorf(http.StatusTooManyRequests, "too many uploads from your address; wait a minute")
	}
	// The per-account limits, before 32 MiB are read (the store checks
	// them again as it adds the version).
	var le *store.LimitError
	if err := a.st.CheckUploadLimits(r.Context(), who.acc.ID, g.Info().ID, name, a.uploadLimits()); errors.As(err, &le) {
		return limitRefusal(w, le)
	} else if err != nil {
		return err
	}
	if !a.tries.Allow(strconv.FormatInt(who.acc.ID, 10)) {
		return Errorf(http.StatusTooManyRequests, "an account may try %d uploads a day, refused ones included (twice its %d versions a day); try again tomorrow",
			2*a.opt.UploadsPerDay, a.opt.UploadsPerDay)
	}
	wasm, formCSRF, err := readModule(r)
	// The response's write deadline runs from now, not from the request's
	// start: 32 MiB over a slow line take minutes to arrive.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(UploadWriteWait))
	if err != nil {
		return err
	}
	c, err := a.mustAuth(r, formCSRF)
	if err != nil {
		return err
	}
	if same, ok, err := a.sameAsNewest(r.Context(), c.acc.ID, g.Info().ID, name, wasm); err != nil {
		return err
	} else if ok {
		writeJSON(w, http.StatusOK, same)
		return nil
	}
	b, v, err := a.p.Upload(r.Context(), c.acc, g.Info().ID, name, wasm, a.uploadLimits())
	if errors.As(err, &le) {
		return limitRefusal(w, le)
	} else if err != nil {
		return err
	}
	out := UploadJSON{Bot: botJSON(b), Version: versionJSON(v, true)}
	out.Bot.ActiveVersion = b.ActiveVersion
	status := http.StatusCreated
	switch v.State {
	case store.VersionRefused:
		status = http.StatusUnprocessableEntity
		out.Error = v.Message
	case store.VersionChecking:
		status = http.StatusAccepted
	}
	writeJSON(w, status, out)
	return nil
}

// sameAsNewest finds whether the module is what the bot plays already (its
// active version, or its newest while that is being checked): pushing the
// same build twice (a script on every commit) must not reset the bot's
// uncertainty, nor spend an upload of the day. A retired bot, or bytes of an
// older version, make a new version as ever.
func (a *API) sameAsNewest(ctx context.Context, accountID int64, game, name string, wasm []byte) (UploadJSON, bool, error) {
	b, err := a.st.BotByName(ctx, accountID, game, name)
	if errors.Is(err, store.ErrNotFound) {
		return UploadJSON{}, false, nil
	} else if err != nil {
		return UploadJSON{}, false, err
	}
	vs, err := a.st.Versions(ctx, b.ID)
	if err != nil || len(vs) == 0 || b.Retired {
		return UploadJSON{}, false, err
	}
	newest := vs[0]
	if newest.SHA256 != hashing.SHA256Hex(wasm) || (newest.ID != b.ActiveVersion && newest.State != store.VersionChecking) {
		return UploadJSON{}, false, nil
	}
	out := UploadJSON{Bot: botJSON(b), Version: versionJSON(newest, true),
		Note: fmt.Sprintf("unchanged: this module is already version %d of the bot (%s)", newest.Number, newest.State)}
	out.Bot.ActiveVersion = b.ActiveVersion
	return out, true, nil
}

// limitRefusal tells an uploader which per-account limit it met and what
// to do: 429 with the time of the next possible upload, or 403 for bots.
func limitRefusal(w http.ResponseWriter, le *store.LimitError) error {
	if le.Bots {
		return Errorf(http.StatusForbidden, "an account may have at most %d %s bot(s), and yours are %s; upload a new version of one of them instead (a retired bot comes back with a new version; a bot with no version ever accepted does not count)",
			le.Limit, le.Game, strings.Join(le.Names, ", "))
	}
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(time.Until(le.Next).Seconds())))))
	next := le.Next.Truncate(time.Minute) // said to the minute, rounded up
	if next.Before(le.Next) {
		next = next.Add(time.Minute)
	}
	return Errorf(http.StatusTooManyRequests, "an account may upload %d versions in 24 hours; your next upload can be made at %s UTC",
		le.Limit, next.UTC().Format("2006-01-02 15:04"))
}

// MatchJSON is a match as the API shows it.
type MatchJSON struct {
	ID       int64             `json:"id"`
	Game     string            `json:"game"`
	Params   map[string]string `json:"params"`
	Seed     string            `json:"seed"` // a string: JSON numbers lose 64-bit precision
	Kind     string            `json:"kind"`
	State    string            `json:"state"`
	Reason   string            `json:"reason,omitempty"`
	Turns    int64             `json:"turns"`
	Created  time.Time         `json:"created"`
	Finished *time.Time        `json:"finished,omitempty"`
	Seats    []SeatJSON        `json:"seats"`
	Replay   json.RawMessage   `json:"replay,omitempty"`

	// Determinism is "checked" or "mismatch" for a match run a second time
	// and compared (docs/deploy.md); absent for the others.
	Determinism string `json:"determinism,omitempty"`
}

// SeatJSON is one seat of a match.
type SeatJSON struct {
	Seat     int            `json:"seat"`
	BotID    int64          `json:"bot_id"`
	Player   string         `json:"player"`
	Bot      string         `json:"bot"`
	Version  int64          `json:"version_id,omitempty"`
	Score    int64          `json:"score"`
	Place    int            `json:"place,omitempty"`
	Statuses map[string]int `json:"statuses,omitempty"`
	Fuel     int64          `json:"fuel,omitempty"`
}

func matchJSON(m store.Match) MatchJSON {
	j := MatchJSON{ID: m.ID, Game: m.Game, Params: m.Params, Seed: strconv.FormatUint(m.Seed, 10), Kind: m.Kind, State: m.State,
		Reason: m.Reason, Turns: m.Turns, Determinism: m.Determinism, Created: m.CreatedAt.UTC(), Seats: []SeatJSON{}}
	if j.Params == nil {
		j.Params = map[string]string{}
	}
	if !m.FinishedAt.IsZero() {
		t := m.FinishedAt.UTC()
		j.Finished = &t
	}
	for _, s := range m.Seats {
		j.Seats = append(j.Seats, SeatJSON{Seat: s.Seat, BotID: s.BotID, Player: "@" + s.Handle, Bot: s.BotName, Version: s.VersionID,
			Score: s.Score, Place: s.Place, Statuses: s.Statuses, Fuel: s.Fuel})
	}
	return j
}

// ParseMatchFilter reads a match list's query, whose game is one of games.
func ParseMatchFilter(q url.Values, games []game.Game) (store.MatchFilter, error) {
	var f store.MatchFilter
	var err error
	if g := q.Get("game"); g != "" {
		gm, err := findGame(games, g)
		if err != nil {
			return f, err
		}
		f.Game = gm.Info().ID
	}
	if b := q.Get("bot"); b != "" {
		if f.BotID, err = ParseID("bot", b); err != nil {
			return f, err
		}
	}
	switch q.Get("state") {
	case "", "finished":
	case "live":
		f.Live = true
	default:
		return f, Errorf(http.StatusBadRequest, "state: live or finished")
	}
	if b := q.Get("before"); b != "" {
		if f.Before, err = ParseID("before", b); err != nil {
			return f, err
		}
	}
	f.Limit, err = ParseLimit(q.Get("limit"))
	return f, err
}

func (a *API) matches(w http.ResponseWriter, r *http.Request) error {
	f, err := ParseMatchFilter(r.URL.Query(), a.opt.Games)
	if err != nil {
		return err
	}
	// A list of one game's matches, or of one bot's (a bot plays one
	// game), changes only with that game; without either it spans them all.
	scope := f.Game
	if scope == "" && f.BotID != 0 {
		scope = a.botGame.of(r.Context(), a.st, f.BotID)
	}
	return a.cached(w, r, scope, func(ctx context.Context) (any, error) {
		ms, err := a.st.Matches(ctx, f)
		if err != nil {
			return nil, err
		}
		out := struct {
			Matches []MatchJSON `json:"matches"`
			Next    string      `json:"next,omitempty"`
		}{Matches: []MatchJSON{}}
		for _, m := range ms {
			out.Matches = append(out.Matches, matchJSON(m))
		}
		if len(ms) == f.Limit {
			out.Next = strconv.FormatInt(ms[len(ms)-1].ID, 10)
		}
		return out, nil
	})
}

func (a *API) matchByPath(r *http.Request) (store.Match, error) {
	id, err := ParseID("match", r.PathValue("id"))
	if err != nil {
		return store.Match{}, err
	}
	m, err := a.st.Match(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Match{}, Errorf(http.StatusNotFound, "no match %d", id)
	}
	return m, err
}

func (a *API) match(w http.ResponseWriter, r *http.Request) error {
	m, err := a.matchByPath(r)
	if err != nil {
		return err
	}
	j := matchJSON(m)
	if r.URL.Query().Get("replay") != "0" {
		rep, err := a.st.Replay(r.Context(), m.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if len(rep) > 0 {
			j.Replay = rep
		}
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

func (a *API) replay(w http.ResponseWriter, r *http.Request) error {
	m, err := a.matchByPath(r)
	if err != nil {
		return err
	}
	rep, err := a.st.Replay(r.Context(), m.ID)
	if errors.Is(err, store.ErrNotFound) {
		return Errorf(http.StatusNotFound, "match %d has no replay (it is %s)", m.ID, m.State)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="match-%d.json"`, m.ID))
	w.Write(rep)
	return nil
}

// UploadWriteWait is the time an upload's answer has to be written once
// the module has arrived (the check runs meanwhile: up to 90 s).
const UploadWriteWait = 3 * time.Minute

// StreamWriteWait is how long a write to an event stream may wait: a
// client that stops reading loses the stream then.
const StreamWriteWait = time.Minute

// fromSite marks the site's own requests to the API (FromSite).
type fromSite struct{}

// FromSite marks ctx as the site's own request to the API, made in the
// process for a page the site serves and bounds itself (a match page's
// stream): the API does not count it among its live views.
func FromSite(ctx context.Context) context.Context { return context.WithValue(ctx, fromSite{}, true) }

// The live views (server-sent event streams) open at once, in all and
// from one address: one visitor must not take them all.
const (
	maxLiveStreams        = 256
	maxLiveStreamsPerAddr = 8
)

func (a *API) live(w http.ResponseWriter, r *http.Request) error {
	m, err := a.matchByPath(r)
	if err != nil {
		return err
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		return Errorf(http.StatusNotImplemented, "streaming is not supported here")
	}
	if r.Context().Value(fromSite{}) == nil {
		done, ok := a.liveViews.Open(a.clientIP(r))
		if !ok {
			return Errorf(http.StatusServiceUnavailable, "too many live views open; try again later")
		}
		defer done()
	}
	turns := make(chan []byte, 256)
	past, stop, err := a.p.Live(m.ID, func(b []byte) {
		select {
		case turns <- b:
		default: // a slow reader loses turns rather than holding up the match
		}
	})
	if err != nil {
		return err
	}
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// A viewer who stops reading loses the stream a minute after a write
	// blocks; one who reads keeps it for the whole match.
	sw := &visitors.DeadlineWriter{ResponseWriter: w, Conn: http.NewResponseController(w), Wait: StreamWriteWait}
	w, fl = sw, sw
	fmt.Fprintf(w, "event: match\ndata: %s\n\n", mustJSON(matchJSON(m)))
	// The turns so far, so that a view opened late draws the board at once.
	if past == nil {
		past = [][]byte{}
	}
	fmt.Fprintf(w, "event: turns\ndata: %s\n\n", mustJSON(rawTurns(past)))
	fl.Flush()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for m.State == store.Queued || m.State == store.Running {
		select {
		case <-r.Context().Done():
			return nil
		case b := <-turns:
			fmt.Fprintf(w, "event: turn\ndata: %s\n\n", b)
			fl.Flush()
		case <-tick.C:
			if m, err = a.st.Match(r.Context(), m.ID); err != nil {
				return nil
			}
		}
	}
	fmt.Fprintf(w, "event: end\ndata: %s\n\n", mustJSON(matchJSON(m)))
	fl.Flush()
	return nil
}

// rawTurns passes turns through to JSON as they are.
func rawTurns(turns [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(turns))
	for i, t := range turns {
		out[i] = t
	}
	return out
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (a *API) seatLog(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	m, err := a.matchByPath(r)
	if err != nil {
		return err
	}
	seat, err := strconv.Atoi(r.PathValue("seat"))
	if err != nil || seat < 0 || seat >= len(m.Seats) {
		return Errorf(http.StatusNotFound, "match %d has no seat %q", m.ID, truncate(r.PathValue("seat"), 16))
	}
	b, err := a.st.Bot(r.Context(), m.Seats[seat].BotID)
	if err != nil {
		return err
	}
	if b.AccountID != c.acc.ID {
		return Errorf(http.StatusForbidden, "a bot's log is for its owner only")
	}
	s, err := a.st.SeatLog(r.Context(), m.ID, seat)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"match": m.ID, "seat": seat, "bot_id": b.ID, "stderr": string(s.Stderr)})
	return nil
}

// ChallengeRequest asks for an unrated match.
type ChallengeRequest struct {
	Game string    `json:"game"`
	Bots []int64   `json:"bots"`
	Seed *SeedJSON `json:"seed"`
}

// MaxSeed is the largest match seed: the store keeps seeds as signed 64-bit
// integers.
const MaxSeed = 1<<63 - 1

// SeedJSON is a match seed as a request gives it: a decimal string, as the
// API writes seeds (JavaScript's numbers lose digits past 2^53), or a JSON
// number; 0 to MaxSeed either way, never silently changed.
type SeedJSON uint64

// UnmarshalJSON reads a seed from a string or a number.
func (s *SeedJSON) UnmarshalJSON(b []byte) error {
	text := string(b)
	var err error
	if len(b) > 0 && b[0] == '"' {
		err = json.Unmarshal(b, &text)
	}
	n, perr := strconv.ParseUint(text, 10, 64)
	if err != nil || perr != nil || n > MaxSeed {
		return fmt.Errorf("seed: a whole number from 0 to %d, as a string or a number", uint64(MaxSeed))
	}
	*s = SeedJSON(n)
	return nil
}

// DecodeChallenge reads a challenge body.
func DecodeChallenge(body []byte) (ChallengeRequest, error) {
	var c ChallengeRequest
	if err := DecodeStrict(body, &c); err != nil {
		return c, err
	}
	return c, checkChallenge(c)
}

// checkChallenge says what is wrong with a challenge, if anything.
func checkChallenge(c ChallengeRequest) error {
	if c.Game == "" {
		return Errorf(http.StatusBadRequest, "game: required")
	}
	if len(c.Bots) < 2 || len(c.Bots) > 8 {
		return Errorf(http.StatusBadRequest, "bots: 2 to 8 bot ids, in seat order")
	}
	return nil
}

func (a *API) challenge(w http.ResponseWriter, r *http.Request) error {
	c, err := a.mustAuth(r, "")
	if err != nil {
		return err
	}
	if err := checkOrigin(r); err != nil {
		return err
	}
	var req ChallengeRequest
	if err := readJSON(r, &req); err != nil {
		return err
	}
	if err := checkChallenge(req); err != nil {
		return err
	}
	g, err := a.lookupGame(req.Game)
	if err != nil {
		return err
	}
	seed := uint64(time.Now().UnixNano())
	if req.Seed != nil {
		seed = uint64(*req.Seed)
	}
	if !a.challenges.Allow("account " + c.acc.Handle) {
		return Errorf(http.StatusTooManyRequests, "too many challenges from this account in the last minute; wait a minute")
	}
	id, err := a.p.Challenge(r.Context(), g.Info().ID, req.Bots, seed)
	if err != nil {
		return err
	}
	a.log.Info("challenge", "by", c.acc.Handle, "match", id)
	writeJSON(w, http.StatusCreated, map[string]int64{"match": id})
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
