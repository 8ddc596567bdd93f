// Package battlesnakebot plays an existing Battlesnake HTTP server as a bot:
// the battlesnake:URL kind, for local Snake matches from the command line
// (docs/games/snake.md). The platform speaks the Battlesnake API to it: GET /
// once, POST /start with the first observation, POST /move every turn (the
// observation, which is Battlesnake's /move body, with its timeout set), and
// POST /end when the match ends; the /move response is the answer line.
//
// A server is never accepted by arena serve: it would make the platform send
// requests wherever a stranger says.
package battlesnakebot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/protocol"
)

// DefaultTimeout is how long a /move may take, as Battlesnake's default game
// timeout.
const DefaultTimeout = 500 * time.Millisecond

// maxBody is the most of a response read: an answer line's limit and a
// little for white space.
const maxBody = bot.MaxLine + 1024

// Bot is a battlesnake: bot.
type Bot struct {
	base    *url.URL
	client  *http.Client
	timeout time.Duration
	log     bot.Log

	mu      sync.Mutex
	started bool
	last    []byte // the last observation, for /end
}

// Open checks the server's URL; the server is first called when the bot is
// first asked.
func Open(raw string, m bot.Match) (*Bot, error) {
	return OpenWithTimeout(raw, DefaultTimeout)
}

// OpenWithTimeout is Open with another time limit per /move.
func OpenWithTimeout(raw string, timeout time.Duration) (*Bot, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("battlesnake URL %q: want http://HOST[:PORT][/PATH] or https://...", raw)
	}
	return &Bot{base: u, timeout: timeout, client: &http.Client{
		// A server's redirect is not followed: the URL given is the one called.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Identity names the bot by its URL.
func (b *Bot) Identity() bot.Identity {
	return bot.Identity{Spec: spec.Spec{Kind: spec.Battlesnake, URL: b.base.String()}.String()}
}

// Act sends the observation to /move (after GET / and /start on the first
// turn) and returns the server's answer, with its latency in the bot's log.
func (b *Bot) Act(ctx context.Context, req bot.Request) bot.Reply {
	b.mu.Lock()
	defer b.mu.Unlock()
	body := withTimeout(req.Observation, b.timeout)
	b.last = body
	if !b.started {
		b.started = true
		if info, err := b.call(ctx, http.MethodGet, "", nil, b.timeout); err != nil {
			fmt.Fprintf(&b.log, "GET /: %v\n", err)
		} else {
			fmt.Fprintf(&b.log, "GET /: %s\n", clip(info))
		}
		if _, err := b.call(ctx, http.MethodPost, "start", body, b.timeout); err != nil {
			fmt.Fprintf(&b.log, "POST /start: %v\n", err)
		}
	}
	start := time.Now()
	answer, err := b.call(ctx, http.MethodPost, "move", body, b.timeout)
	latency := time.Since(start)
	fmt.Fprintf(&b.log, "turn %d: /move %d ms\n", req.Turn, latency.Milliseconds())
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return bot.Reply{Status: protocol.Timeout, Detail: fmt.Sprintf("no /move answer within %v", b.timeout)}
	case err != nil:
		return bot.Reply{Status: protocol.Crash, Detail: "/move: " + err.Error()}
	}
	var line bytes.Buffer
	if err := json.Compact(&line, answer); err != nil {
		return bot.Reply{Status: protocol.Malformed, Detail: fmt.Sprintf("/move answered %s: not JSON", clip(answer))}
	}
	if line.Len() > bot.MaxLine {
		return bot.Reply{Status: protocol.Malformed, Detail: "/move answered more than an answer line may hold"}
	}
	return bot.Reply{Status: protocol.OK, Line: line.Bytes()}
}

// Close sends /end with the last observation and returns the bot's log.
func (b *Bot) Close() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		if _, err := b.call(context.Background(), http.MethodPost, "end", b.last, b.timeout); err != nil {
			fmt.Fprintf(&b.log, "POST /end: %v\n", err)
		}
	}
	return b.log.Bytes()
}

// call makes one request below the base URL and returns the response body
// of a 2xx answer.
func (b *Bot) call(ctx context.Context, method, path string, body []byte, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := b.base.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, clip(data))
	}
	return data, nil
}

// withTimeout sets the observation's game.timeout (0 for metered bots) to
// the milliseconds this server has, as Battlesnake's API says.
func withTimeout(obs []byte, timeout time.Duration) []byte {
	return bytes.Replace(obs, []byte(`"timeout":0,`), []byte(`"timeout":`+strconv.FormatInt(timeout.Milliseconds(), 10)+`,`), 1)
}

func clip(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + "..."
	}
	return strconv.Quote(string(b))
}
