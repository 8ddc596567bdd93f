package jobs_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/arenabots/arena/internal/jobs"
)

func TestCredsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), jobs.CredsFile)
	want := jobs.Creds{URL: "nats://127.0.0.1:23301", User: jobs.WorkerUser, Password: "p4ss"}
	os.WriteFile(path, []byte("old"), 0o644)
	if err := jobs.WriteCreds(path, want); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("creds file mode %v (%v); want 0600", info.Mode(), err)
	}
	got, err := jobs.ReadCreds(path)
	if err != nil || got != want {
		t.Fatalf("read back %+v, %v; want %+v", got, err, want)
	}
	pw, err := jobs.WorkerPasswordFor(filepath.Dir(path))
	if err != nil || pw != "p4ss" {
		t.Fatalf("password kept across restarts: got %q, %v", pw, err)
	}
	for _, bad := range []string{
		``, `{}`, `[]`, `{"url":"nats://h:1","user":"u"}`,
		`{"url":"http://h:1","user":"u","password":"p"}`,
		`{"url":"nats://","user":"u","password":"p"}`,
		`{"url":"nats://h:1","user":"u","password":"p","extra":1}`,
		`{"url":"nats://h:1","user":"u","password":"p"} {}`,
		`{"url":"nats://h:1","user":"u","password":"p","ca":"not pem"}`,
		`{"url":"nats://h:1","user":"u","password":"` + strings.Repeat("x", 70000) + `"}`,
	} {
		if _, err := jobs.ParseCreds([]byte(bad)); err == nil {
			t.Errorf("ParseCreds(%.60q) accepted", bad)
		}
	}
	if _, err := jobs.ParseCreds([]byte(`{"url":"tls://a:1, nats://b:2","user":"u","password":"p"}`)); err != nil {
		t.Errorf("a cluster's URL list refused: %v", err)
	}
}

func FuzzParseCreds(f *testing.F) {
	f.Add([]byte(`{"url":"nats://127.0.0.1:4222","user":"worker","password":"x"}`))
	f.Add([]byte(`{"url":"tls://a:1,tls://b:2","user":"w","password":"p","ca":"-----BEGIN CERTIFICATE-----\n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := jobs.ParseCreds(data)
		if err != nil {
			return
		}
		if c.URL == "" || c.User == "" || c.Password == "" {
			t.Fatalf("accepted incomplete creds %+v", c)
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if c2, err := jobs.ParseCreds(again); err != nil || c2 != c {
			t.Fatalf("round trip: %+v -> %+v, %v", c, c2, err)
		}
	})
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "arena test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certPath, keyPath
}

// exposed starts an embedded server open as l says and sets up the queue
// over the server's own connection, which it returns with the queue.
func exposed(t *testing.T, l jobs.Listen, ackWait time.Duration) (*nats.Conn, *jobs.Queue) {
	t.Helper()
	ns := startExposed(t, l)
	snc, err := jobs.Connect(ns, jobs.ServerUser, l.ServerPassword)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(snc.Close)
	q, err := jobs.Setup(context.Background(), snc, jobs.Config{AckWait: ackWait})
	if err != nil {
		t.Fatal(err)
	}
	return snc, q
}

// startExposed starts an embedded server open as l says, until the test ends.
func startExposed(tb testing.TB, l jobs.Listen) *natsserver.Server {
	tb.Helper()
	opt, err := l.Apply()
	if err != nil {
		tb.Fatal(err)
	}
	ns, err := jobs.StartServer(tb.TempDir(), opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ns.Shutdown)
	return ns
}

// TestListen exposes an embedded server, plain and with TLS: the worker's
// creds get in and bind to the server's queue; no password, a wrong one,
// or TLS without the server's CA do not.
func TestListen(t *testing.T) {
	cert, key := selfSigned(t)
	for i, tc := range []struct{ cert, key string }{{"", ""}, {cert, key}} {
		name := "plain"
		if tc.cert != "" {
			name = "tls"
		}
		t.Run(name, func(t *testing.T) {
			l := jobs.Listen{Addr: "127.0.0.1:" + []string{"23301", "23302"}[i], TLSCert: tc.cert, TLSKey: tc.key, WorkerPassword: "w0rker", ServerPassword: "s3rver"}
			exposed(t, l, 3*time.Second)
			creds, err := l.WorkerCreds()
			if err != nil {
				t.Fatal(err)
			}
			if tc.cert != "" && (!strings.HasPrefix(creds.URL, "tls://") || creds.CA == "") {
				t.Fatalf("TLS creds without tls:// or CA: %+v", creds)
			}
			url := creds.URL
			for _, opts := range [][]nats.Option{
				{nats.Timeout(2 * time.Second)},
				{nats.UserInfo(jobs.WorkerUser, "wrong"), nats.Timeout(2 * time.Second)},
			} {
				if nc, err := nats.Connect(url, opts...); err == nil {
					nc.Close()
					t.Fatalf("connection to %s accepted without the right password", url)
				}
			}
			if tc.cert != "" {
				if nc, err := nats.Connect(url, nats.UserInfo(jobs.WorkerUser, "w0rker"), nats.Timeout(2*time.Second)); err == nil {
					nc.Close()
					t.Fatal("TLS connection accepted without the server's CA")
				}
			}
			nc, err := jobs.Dial(url, creds, "test-worker")
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			q, err := jobs.Open(ctx, nc)
			if err != nil {
				t.Fatal(err)
			}
			if q.AckWait != 3*time.Second {
				t.Fatalf("worker sees ack wait %v; the server set 3s", q.AckWait)
			}
		})
	}
}

func TestListenRefusesBadOptions(t *testing.T) {
	for _, l := range []jobs.Listen{
		{Addr: "nohostport", WorkerPassword: "a", ServerPassword: "b"},
		{Addr: "127.0.0.1:0", WorkerPassword: "a", ServerPassword: "b"},
		{Addr: "127.0.0.1:70000", WorkerPassword: "a", ServerPassword: "b"},
		{Addr: "127.0.0.1:23303", TLSCert: "c.pem", WorkerPassword: "a", ServerPassword: "b"},
		{Addr: "127.0.0.1:23303"},
	} {
		if _, err := l.Apply(); err == nil {
			t.Errorf("Listen %+v accepted", l)
		}
	}
}
