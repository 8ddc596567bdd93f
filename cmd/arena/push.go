package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

type pushCmd struct {
	Server string `required:"" env:"ARENA_SERVER" help:"The server's URL, e.g. http://127.0.0.1:8080."`
	Token  string `required:"" env:"ARENA_TOKEN" help:"An API token (from sign-up, or POST /api/v1/tokens)."`
	Game   string `required:"" help:"The game the bot plays."`
	Name   string `required:"" help:"The bot's name; pushing again makes a new version."`
	File   string `arg:"" type:"existingfile" help:"The wasm module."`
}

func (c *pushCmd) Run() error {
	wasm, err := os.ReadFile(c.File)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(c.Server, "http://") && !strings.HasPrefix(c.Server, "https://") {
		return usageError{fmt.Errorf("--server %q: want the server's URL, starting with http:// or https:// (e.g. http://127.0.0.1:8080)", c.Server)}
	}
	u := strings.TrimRight(c.Server, "/") + "/api/v1/games/" + url.PathEscape(c.Game) + "/bots/" + url.PathEscape(c.Name)
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(wasm))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/wasm")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	fmt.Fprintf(os.Stderr, "pushing %s (%d bytes) as %s for %s; the server tries it in a smoke match...\n", c.File, len(wasm), c.Name, c.Game)
	status, body, err := send(req, c.Server, 3*time.Minute, 1<<20)
	if err != nil {
		return err
	}
	var out struct {
		Error string `json:"error"`
		Note  string `json:"note"`
		Bot   struct {
			ID     int64  `json:"id"`
			Player string `json:"player"`
			Name   string `json:"name"`
			Rating int    `json:"rating"`
		} `json:"bot"`
		Version struct {
			Number  int64  `json:"number"`
			State   string `json:"state"`
			Message string `json:"message"`
		} `json:"version"`
	}
	json.Unmarshal(body, &out)
	switch status {
	case http.StatusOK:
		if out.Note != "" { // anything else is not an Arena server's answer
			fmt.Printf("%s/%s: %s\n", out.Bot.Player, out.Bot.Name, out.Note)
			return nil
		}
	case http.StatusCreated:
		fmt.Printf("%s/%s version %d is active (bot %d): %s\n", out.Bot.Player, out.Bot.Name, out.Version.Number, out.Bot.ID, out.Version.Message)
		fmt.Printf("its page, with its matches and rating as they come in: %s\n", botPage(c.Server, out.Bot.ID))
		return nil
	case http.StatusAccepted:
		fmt.Printf("%s/%s version %d is still being checked (bot %d); its page says when it is done: %s\n", out.Bot.Player, out.Bot.Name, out.Version.Number, out.Bot.ID, botPage(c.Server, out.Bot.ID))
		return nil
	}
	msg := out.Error
	if msg == "" {
		msg = "not an answer of the Arena API: " + strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	return fmt.Errorf("push refused (%d %s): %s", status, http.StatusText(status), msg)
}

// botPage is the address of bot id's page on the site of server, where a
// newcomer watches it reach the ladder.
func botPage(server string, id int64) string {
	return strings.TrimRight(server, "/") + "/bots/" + strconv.FormatInt(id, 10)
}
