package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/internal/store"
)

var botNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)

// CheckBotName says what is wrong with a bot name, if anything.
func CheckBotName(name string) error {
	if !botNamePattern.MatchString(name) {
		return Errorf(http.StatusBadRequest, "bot name: 1 to 32 characters: letters, digits, '.', '-' and '_', starting with a letter or digit")
	}
	return nil
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

// UploadStep is one step of an upload's check, told as it happens (a
// streamed upload, docs/api.md): Stage is what happened; the other fields
// are those the stage has. Answer is the uploaded bot's own answer line,
// attacker text: cut to MaxStepAnswer bytes, for the page to show as text.
type UploadStep struct {
	// Stage is one of: compiling, compiled, smoke (its match is made and
	// waits for a worker), running (its first turn arrived), restarted (a
	// worker died and another started it again), answer (one of the bot's
	// first MaxStepAnswers answers), progress (the turns played so far).
	Stage    string `json:"stage"`
	Message  string `json:"message,omitempty"`
	Match    int64  `json:"match,omitempty"`
	Opponent string `json:"opponent,omitempty"`
	Turn     int    `json:"turn,omitempty"`
	Status   string `json:"status,omitempty"`
	Fuel     int64  `json:"fuel,omitempty"`
	Answer   string `json:"answer,omitempty"`
	// AnswerLen is the answer's length in bytes when Answer was cut, or
	// when the answer is not UTF-8 (and Answer is empty).
	AnswerLen int    `json:"answer_len,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// The bounds of what a streamed upload tells of the smoke match: the first
// answers in full, each cut to a line's worth; after them, the turn count.
const (
	MaxStepAnswers = 20
	MaxStepAnswer  = 160
)

// uploadLimits are the per-account upload limits, as of now.
func (c *Core) uploadLimits() store.UploadLimits {
	return store.UploadLimits{PerDay: c.opt.UploadsPerDay, BotsPerGame: c.opt.BotsPerGame, Now: time.Now()}
}

// CheckUpload applies the per-account limits to an upload of the caller's
// bot name of game, before its module is read (Upload applies them again
// as it adds the version): versions a day, bots a game, and attempts a day.
func (c *Core) CheckUpload(ctx context.Context, who Caller, game, name string) error {
	if !who.LoggedIn() {
		return ErrLogIn
	}
	var le *store.LimitError
	if err := c.st.CheckUploadLimits(ctx, who.Account.ID, game, name, c.uploadLimits()); errors.As(err, &le) {
		return limitRefusal(le)
	} else if err != nil {
		return err
	}
	if !c.tries.Allow(strconv.FormatInt(who.Account.ID, 10)) {
		return Errorf(http.StatusTooManyRequests, "an account may try %d uploads a day, refused ones included (twice its %d versions a day); try again tomorrow",
			2*c.opt.UploadsPerDay, c.opt.UploadsPerDay)
	}
	return nil
}

// Upload makes wasm a new version of the caller's bot name of game and
// tells the HTTP status of the outcome: 201 active, 202 still being
// checked, 422 refused (UploadJSON.Error says why), 200 unchanged. report,
// when not nil, is told each step of the check as it happens.
func (c *Core) Upload(ctx context.Context, who Caller, game, name string, wasm []byte, report func(UploadStep)) (UploadJSON, int, error) {
	if !who.LoggedIn() {
		return UploadJSON{}, 0, ErrLogIn
	}
	if same, ok, err := c.sameAsNewest(ctx, who.Account.ID, game, name, wasm); err != nil {
		return UploadJSON{}, 0, err
	} else if ok {
		return same, http.StatusOK, nil
	}
	b, v, err := c.p.Upload(ctx, who.Account, game, name, wasm, c.uploadLimits(), report)
	var le *store.LimitError
	if errors.As(err, &le) {
		return UploadJSON{}, 0, limitRefusal(le)
	} else if err != nil {
		return UploadJSON{}, 0, err
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
	return out, status, nil
}

// sameAsNewest finds whether the module is what the bot plays already (its
// active version, or its newest while that is being checked): pushing the
// same build twice (a script on every commit) must not reset the bot's
// uncertainty, nor spend an upload of the day. A retired bot, or bytes of an
// older version, make a new version as ever.
func (c *Core) sameAsNewest(ctx context.Context, accountID int64, game, name string, wasm []byte) (UploadJSON, bool, error) {
	b, err := c.st.BotByName(ctx, accountID, game, name)
	if errors.Is(err, store.ErrNotFound) {
		return UploadJSON{}, false, nil
	} else if err != nil {
		return UploadJSON{}, false, err
	}
	vs, err := c.st.Versions(ctx, b.ID)
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
func limitRefusal(le *store.LimitError) error {
	if le.Bots {
		return Errorf(http.StatusForbidden, "an account may have at most %d %s bot(s), and yours are %s; upload a new version of one of them instead (a retired bot comes back with a new version; a bot with no version ever accepted does not count)",
			le.Limit, le.Game, strings.Join(le.Names, ", "))
	}
	next := le.Next.Truncate(time.Minute) // said to the minute, rounded up
	if next.Before(le.Next) {
		next = next.Add(time.Minute)
	}
	e := Errorf(http.StatusTooManyRequests, "an account may upload %d versions in 24 hours; your next upload can be made at %s UTC",
		le.Limit, next.UTC().Format("2006-01-02 15:04"))
	e.RetryAfter = time.Duration(max(1, int(math.Ceil(time.Until(le.Next).Seconds())))) * time.Second
	return e
}
