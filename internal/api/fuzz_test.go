package api

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/store"
)

// refusal checks that err is a user-facing refusal: a 4xx *Error whose
// message does not leak Go internals.
func refusal(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Status < 400 || e.Status >= 500 || e.Msg == "" {
		t.Fatalf("refusal %d %q", e.Status, e.Msg)
	}
	for _, leak := range []string{"api.", "store.", "goroutine", "struct {"} {
		if strings.Contains(e.Msg, leak) {
			t.Fatalf("refusal leaks %q: %q", leak, e.Msg)
		}
	}
}

func FuzzDecodeCredentials(f *testing.F) {
	for _, s := range []string{`{"handle":"alice","password":"12345678"}`, `{"handle":"@a","password":""}`, `{"handle":"house","password":"12345678"}`, `{}`, `[`, `{"handle":"a"} {}`, `{"x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := DecodeCredentials(body)
		if err != nil {
			refusal(t, err)
			return
		}
		if !handlePattern.MatchString(c.Handle) || reserved[c.Handle] || len(c.Password) < 8 || len(c.Password) > 72 {
			t.Fatalf("accepted %+v", c)
		}
	})
}

func FuzzDecodeChallenge(f *testing.F) {
	for _, s := range []string{`{"game":"dots-and-boxes","bots":[1,2],"seed":5}`, `{"game":"g","bots":[1]}`, `{"game":"","bots":[1,2]}`, `{"bots":[1,2,3,4,5,6,7,8,9],"game":"x"}`, `{"game":"x","bots":[-1,1e30]}`,
		`{"game":"x","bots":[1,2],"seed":"9223372036854775807"}`, `{"game":"x","bots":[1,2],"seed":"9223372036854775808"}`, `{"game":"x","bots":[1,2],"seed":"-1"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := DecodeChallenge(body)
		if err != nil {
			refusal(t, err)
			return
		}
		if c.Game == "" || len(c.Bots) < 2 || len(c.Bots) > 8 || (c.Seed != nil && *c.Seed > MaxSeed) {
			t.Fatalf("accepted %+v", c)
		}
	})
}

// A seed is taken as the API writes it (a string) or as a number, and one
// the store cannot keep is refused, never changed.
func TestChallengeSeeds(t *testing.T) {
	for _, c := range []struct {
		seed string
		want uint64
		ok   bool
	}{
		{`"1795730718583794746"`, 1795730718583794746, true},
		{`1795730718583794746`, 1795730718583794746, true},
		{`"9223372036854775807"`, MaxSeed, true},
		{`0`, 0, true},
		{`"9223372036854775808"`, 0, false},
		{`9223372036854775808`, 0, false},
		{`18446744073709551615`, 0, false},
		{`"-1"`, 0, false},
		{`1.5`, 0, false},
		{`"0x10"`, 0, false},
		{`"\u0031"`, 1, true},
		{`true`, 0, false},
	} {
		req, err := DecodeChallenge([]byte(`{"game":"g","bots":[1,2],"seed":` + c.seed + `}`))
		switch {
		case c.ok && err != nil:
			t.Errorf("seed %s: %v", c.seed, err)
		case c.ok && uint64(*req.Seed) != c.want:
			t.Errorf("seed %s read as %d, want %d", c.seed, *req.Seed, c.want)
		case !c.ok && err == nil:
			t.Errorf("seed %s accepted as %d", c.seed, *req.Seed)
		case !c.ok && !strings.Contains(err.Error(), "seed: a whole number from 0 to 9223372036854775807"):
			t.Errorf("seed %s: %v, want the range named", c.seed, err)
		}
	}
}

func FuzzParseLeaderCursor(f *testing.F) {
	for _, s := range []string{"", "0.1.1", "4039000000000000.12.50", "7ff8000000000000.1.1", "x.y.z", "1.2", "-1.-1.-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseLeaderCursor(s)
		if err != nil {
			refusal(t, err)
			return
		}
		if c == nil {
			if s != "" {
				t.Fatalf("%q: no cursor and no error", s)
			}
			return
		}
		if c.Score != c.Score || c.ID < 0 || c.Rank < 0 {
			t.Fatalf("%q: accepted %+v", s, c)
		}
		// What the API writes, it reads back the same.
		again, err := ParseLeaderCursor(leaderCursor(store.LeaderRow{Rank: c.Rank, Bot: store.Bot{ID: c.ID, Score: c.Score}}))
		if err != nil || *again != *c {
			t.Fatalf("%q: round trip %+v -> %+v, %v", s, c, again, err)
		}
	})
}

func FuzzParseMatchFilter(f *testing.F) {
	for _, s := range []string{"", "game=grid-royale&bot=3&state=live&before=10&limit=5", "state=x", "limit=0", "bot=-1", "before=99999999999999999999", "game=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		mf, err := ParseMatchFilter(q, games.All())
		if err != nil {
			refusal(t, err)
			return
		}
		if mf.Limit < 1 || mf.Limit > pageMax || mf.Before < 0 || mf.BotID < 0 {
			t.Fatalf("%q: accepted %+v", s, mf)
		}
	})
}

func FuzzReadModule(f *testing.F) {
	f.Add("application/wasm", []byte("\x00asm\x01\x00\x00\x00"))
	f.Add("multipart/form-data; boundary=zz", []byte("--zz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.wasm\"\r\n\r\n\x00asm\x01\x00\x00\x00\r\n--zz\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nc_1\r\n--zz--\r\n"))
	f.Add("text/plain", []byte("hello"))
	f.Add("multipart/form-data", []byte("--\r\n"))
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/games/g/bots/b", bytes.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		wasm, csrf, err := readModule(r)
		if err != nil {
			refusal(t, err)
			return
		}
		if !bytes.HasPrefix(wasm, []byte("\x00asm")) || len(wasm) > MaxUpload || len(csrf) > 256 {
			t.Fatalf("accepted %d bytes, csrf %q", len(wasm), csrf)
		}
	})
}
