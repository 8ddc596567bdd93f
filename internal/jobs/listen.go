package jobs

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Users of an exposed embedded server. The server process connects in
// process as ServerUser with a password that lives only in its memory;
// workers connect as WorkerUser with the password of the creds file, and
// may do only what a worker does (WorkerPermissions).
const (
	ServerUser = "arena"
	WorkerUser = "worker"
)

// CredsFile is the file, under the server's data directory, that holds what
// a worker needs to join: the URL, the worker's user and password, and the
// CA of the server's certificate when it speaks TLS.
const CredsFile = "worker.creds"

// Creds is the content of a creds file (JSON).
type Creds struct {
	URL      string `json:"url"`
	User     string `json:"user"`
	Password string `json:"password"`
	// CA is PEM: the certificate (chain) that the server's certificate must
	// verify against; empty for a plain connection or the system roots.
	CA string `json:"ca,omitempty"`
}

// maxCreds bounds a creds file: it holds a URL, a password and a few
// certificates at most.
const maxCreds = 64 << 10

// ParseCreds reads and checks a creds file's content.
func ParseCreds(data []byte) (Creds, error) {
	var c Creds
	if len(data) > maxCreds {
		return c, fmt.Errorf("creds: %d bytes; at most %d", len(data), maxCreds)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Creds{}, fmt.Errorf("creds: %w", err)
	}
	if dec.More() {
		return Creds{}, errors.New("creds: trailing data after the JSON object")
	}
	if err := checkURL(c.URL); err != nil {
		return Creds{}, fmt.Errorf("creds: %w", err)
	}
	if c.User == "" || c.Password == "" {
		return Creds{}, errors.New("creds: user and password are required")
	}
	if c.CA != "" && !x509.NewCertPool().AppendCertsFromPEM([]byte(c.CA)) {
		return Creds{}, errors.New("creds: ca holds no PEM certificate")
	}
	return c, nil
}

// checkURL accepts a comma-separated list of nats:// or tls:// URLs.
func checkURL(s string) error {
	if s == "" {
		return errors.New("no url")
	}
	for _, part := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil {
			return fmt.Errorf("url %q: %w", part, err)
		}
		if u.Scheme != "nats" && u.Scheme != "tls" {
			return fmt.Errorf("url %q: scheme must be nats or tls", part)
		}
		if u.Host == "" {
			return fmt.Errorf("url %q: no host", part)
		}
	}
	return nil
}

// ReadCreds reads a creds file.
func ReadCreds(path string) (Creds, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Creds{}, err
	}
	c, err := ParseCreds(data)
	if err != nil {
		return Creds{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// WriteCreds writes a creds file readable by its owner only.
func WriteCreds(path string, c Creds) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	// WriteFile keeps the mode of an existing file: make sure.
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Listen exposes an embedded server to workers on other machines.
type Listen struct {
	Addr    string // HOST:PORT
	TLSCert string // PEM files; both or neither
	TLSKey  string
	// WorkerPassword authenticates workers; ServerPassword the server's
	// own in-process connection.
	WorkerPassword string
	ServerPassword string
}

// NewPassword is 128 random bits in hex.
func NewPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Apply returns the StartServer option that opens the port.
func (l Listen) Apply() (func(*natsserver.Options) error, error) {
	host, port, err := net.SplitHostPort(l.Addr)
	if err != nil {
		return nil, fmt.Errorf("jobs: --nats-listen %q: %w", l.Addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return nil, fmt.Errorf("jobs: --nats-listen %q: bad port", l.Addr)
	}
	if (l.TLSCert == "") != (l.TLSKey == "") {
		return nil, errors.New("jobs: a TLS certificate needs its key, and a key its certificate")
	}
	if l.WorkerPassword == "" || l.ServerPassword == "" {
		return nil, errors.New("jobs: an exposed NATS server needs passwords")
	}
	var tc *tls.Config
	if l.TLSCert != "" {
		tc, err = natsserver.GenTLSConfig(&natsserver.TLSConfigOpts{CertFile: l.TLSCert, KeyFile: l.TLSKey})
		if err != nil {
			return nil, fmt.Errorf("jobs: TLS: %w", err)
		}
	}
	return func(o *natsserver.Options) error {
		o.DontListen = false
		o.Host, o.Port = host, p
		o.Users = []*natsserver.User{
			{Username: ServerUser, Password: l.ServerPassword},
			{Username: WorkerUser, Password: l.WorkerPassword, Permissions: WorkerPermissions()},
		}
		if tc != nil {
			o.TLSConfig, o.TLS, o.TLSTimeout = tc, true, 5
		}
		return nil
	}, nil
}

// URL is how a worker reaches the exposed server: a wildcard host is
// replaced by this machine's name.
func (l Listen) URL() string {
	host, port, _ := net.SplitHostPort(l.Addr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		if h, err := os.Hostname(); err == nil {
			host = h
		}
	}
	scheme := "nats"
	if l.TLSCert != "" {
		scheme = "tls"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// WorkerCreds is the creds file content for this listener.
func (l Listen) WorkerCreds() (Creds, error) {
	c := Creds{URL: l.URL(), User: WorkerUser, Password: l.WorkerPassword}
	if l.TLSCert != "" {
		pem, err := os.ReadFile(l.TLSCert)
		if err != nil {
			return c, err
		}
		c.CA = string(pem)
	}
	return c, nil
}

// WorkerPasswordFor keeps the workers' password across restarts: the one in
// an existing creds file under dir, else a new one.
func WorkerPasswordFor(dir string) (string, error) {
	if c, err := ReadCreds(filepath.Join(dir, CredsFile)); err == nil && c.User == WorkerUser {
		return c.Password, nil
	}
	return NewPassword()
}

// login is how a user connects: a worker gets its replies where its
// permissions let it listen (WorkerInbox).
func login(user, password string) []nats.Option {
	opts := []nats.Option{nats.UserInfo(user, password)}
	if user == WorkerUser {
		opts = append(opts, nats.CustomInboxPrefix(WorkerInbox))
	}
	return opts
}

// Dial connects to a NATS server (or cluster: comma-separated URLs) over the
// network. It reconnects forever, so that a worker outlives restarts of the
// server; c may be empty for a server without authentication. extra are
// more options (a closed handler, say).
func Dial(urls string, c Creds, name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		nats.RetryOnFailedConnect(true),
	}
	if c.User != "" {
		opts = append(opts, login(c.User, c.Password)...)
	}
	if c.CA != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(c.CA)) {
			return nil, errors.New("jobs: creds: ca holds no certificate")
		}
		opts = append(opts, nats.Secure(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	}
	nc, err := nats.Connect(urls, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("jobs: connect to %s: %w", urls, err)
	}
	return nc, nil
}

// Open binds to the streams, consumer and bucket that the server made
// (Setup), waiting for them until ctx ends: a worker may start first.
func Open(ctx context.Context, nc *nats.Conn) (*Queue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	for {
		q, err := open(ctx, js)
		if err == nil {
			return q, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("jobs: waiting for the server's streams: %w (last: %v)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

func open(ctx context.Context, js jetstream.JetStream) (*Queue, error) {
	octx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cons, err := js.Consumer(octx, JobStream, JobConsumer)
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(octx)
	if err != nil {
		return nil, err
	}
	// No object store: a worker fetches modules from the server
	// (FetchModule), which is all its permissions allow.
	return &Queue{JS: js, Jobs: cons, AckWait: info.Config.AckWait}, nil
}
