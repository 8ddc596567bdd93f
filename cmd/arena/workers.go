package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arenabots/arena/internal/server"
)

// workersCmd is the operator's view of the workers' standing in the
// determinism votes (GET /api/v1/admin/workers), and the way to put a worker
// out of rotation back in.
type workersCmd struct {
	List  workersListCmd  `cmd:"" default:"1" help:"List the workers: lost votes, out of rotation or not, running ids."`
	Clear workersClearCmd `cmd:"" help:"Put a worker out of rotation back in, its strikes cleared."`
}

// adminFlags say where the server is and where its operator's token is.
type adminFlags struct {
	Server string `default:"http://127.0.0.1:8080" env:"ARENA_SERVER" help:"The server's URL."`
	Data   string `default:"arena-data" type:"path" help:"The server's data directory, which holds admin.token."`
}

type workersListCmd struct{ adminFlags }

type workersClearCmd struct {
	adminFlags
	Name string `arg:"" help:"The worker's name, as the list shows it."`
}

func (c *workersListCmd) Run() error {
	var out struct {
		StrikesOut int                  `json:"strikes_out"`
		Workers    []server.AdminWorker `json:"workers"`
	}
	if err := c.call(http.MethodGet, "/api/v1/admin/workers", &out); err != nil {
		return err
	}
	fmt.Printf("%-24s %-8s %-16s %-20s %s\n", "WORKER", "STRIKES", "STATE", "LAST SEEN", "RUNNING AS")
	for _, w := range out.Workers {
		state := "in rotation"
		if w.Held {
			state = "out of rotation"
		}
		ids := strings.Join(w.IDs, ",")
		if ids == "" {
			ids = "-"
		}
		seen := "-"
		if w.LastSeen != nil {
			seen = w.LastSeen.UTC().Format("2006-01-02 15:04:05")
		}
		fmt.Printf("%-24s %-8s %-16s %-20s %s\n", string(escapeControls([]byte(w.Name))), fmt.Sprintf("%d/%d", w.Strikes, out.StrikesOut), state, seen, string(escapeControls([]byte(ids))))
	}
	return nil
}

func (c *workersClearCmd) Run() error {
	if err := c.call(http.MethodPost, "/api/v1/admin/workers/"+url.PathEscape(c.Name)+"/clear", nil); err != nil {
		return err
	}
	fmt.Printf("worker %s is back in rotation\n", string(escapeControls([]byte(c.Name))))
	return nil
}

// send makes a request of the server and reads at most limit bytes of the
// answer.
func send(req *http.Request, server string, timeout time.Duration, limit int64) (status int, body []byte, err error) {
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("no answer from %s (is the server running there?): %w", server, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp.StatusCode, body, err
}

// call sends an operator's request with the token of the data directory
// and decodes the answer into out.
func (f adminFlags) call(method, path string, out any) error {
	if !strings.HasPrefix(f.Server, "http://") && !strings.HasPrefix(f.Server, "https://") {
		return usageError{fmt.Errorf("--server %q: want the server's URL, starting with http:// or https://", f.Server)}
	}
	tok, err := os.ReadFile(filepath.Join(f.Data, server.AdminTokenFile))
	if err != nil {
		return fmt.Errorf("the operator's token: %w (give --data the server's data directory)", err)
	}
	req, err := http.NewRequest(method, strings.TrimRight(f.Server, "/")+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	status, body, err := send(req, f.Server, 30*time.Second, 4<<20)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		var e struct{ Error string }
		json.Unmarshal(body, &e)
		return fmt.Errorf("%s %s: %d %s: %s", method, path, status, http.StatusText(status), string(escapeControls([]byte(e.Error))))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}
