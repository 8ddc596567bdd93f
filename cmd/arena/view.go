package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/web"
	"github.com/arenabots/arena/replay"
)

// viewCmd serves the site on this machine: the replay viewer for a local
// replay file, and games against the house bots, without the platform.
type viewCmd struct {
	File string `arg:"" optional:"" help:"A replay written by arena match --replay." type:"existingfile"`
	Addr string `default:"127.0.0.1:0" help:"Address to listen on (port 0 picks a free one)."`
}

func (c *viewCmd) Run() error {
	opts := web.Options{Games: games.All()}
	if c.File != "" {
		r, err := replay.Load(c.File)
		if err != nil {
			return err
		}
		opts.Local = r
	}
	site, err := web.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	if c.File != "" {
		url += "local"
	}
	fmt.Printf("Open %s in a browser (Ctrl-C stops).\n", url)
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
