package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/bcrypt"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// The fake platform has no operators.
func (f *fakePlatform) IsAdmin(core.Caller) bool { return false }
func (f *fakePlatform) AdminWorkers(core.Caller) ([]core.AdminWorker, error) {
	return nil, core.Errorf(http.StatusForbidden, "no")
}
func (f *fakePlatform) ClearWorker(core.Caller, string) error {
	return core.Errorf(http.StatusForbidden, "no")
}

const adminPassword = "correct horse battery"

// adminPlatform starts the platform on a data directory that holds an
// account "ops", named as the operator, and the strikes of two workers
// (DATA/workers.json, as the rotation writes it): one out of rotation,
// one whose name is markup.
func adminPlatform(t *testing.T) (base, dir string) {
	t.Helper()
	dir = t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, "", dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := bcrypt.GenerateFromPassword([]byte(adminPassword), bcrypt.MinCost)
	if _, err := st.CreateAccount(ctx, "ops", string(hash)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	since := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	workers, _ := json.Marshal([]core.WorkerStanding{
		{Name: "<b>odd</b>", Strikes: 1, Disagreed: []int64{7}},
		{Name: "skewed-host", Strikes: 3, Held: true, HeldSince: &since, Disagreed: []int64{3, 5, 9}},
	})
	if err := os.WriteFile(filepath.Join(dir, "workers.json"), workers, 0o600); err != nil {
		t.Fatal(err)
	}
	base = platform(t, func(o *server.Options) { o.DataDir, o.Admins, o.NoMatchmaker = dir, []string{"ops"}, true })
	return base, dir
}

// pageStatus is the status the site answers path with, for the cookies
// of jar (nil: none).
func pageStatus(t *testing.T, jar http.CookieJar, method, u string, form url.Values, origin string) (int, string) {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := (&http.Client{Jar: jar}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

// logIn logs handle in through the API and returns its cookies and the
// session's CSRF token.
func logIn(t *testing.T, base, handle, password string) (http.CookieJar, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	body, _ := json.Marshal(map[string]string{"handle": handle, "password": password})
	resp, err := (&http.Client{Jar: jar}).Post(base+"/api/v1/sessions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ CSRF string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.CSRF == "" {
		t.Fatalf("logging %s in: %d %v", handle, resp.StatusCode, err)
	}
	return jar, out.CSRF
}

// The operator's page answers only the accounts --admin names, with the
// site's 403 page for anyone else, and its Clear form only with the
// session's CSRF token from the site itself.
func TestAdminPageIsTheOperators(t *testing.T) {
	base, dir := adminPlatform(t)
	if code, body := pageStatus(t, nil, "GET", base+"/admin", nil, ""); code != 403 || !strings.Contains(body, "operator") || !strings.Contains(body, `class="card narrow error-page"`) {
		t.Fatalf("/admin logged out: %d", code)
	}
	signupBody := `{"handle":"mallory","password":"correct horse battery"}`
	if resp, err := http.Post(base+"/api/v1/accounts", "application/json", strings.NewReader(signupBody)); err != nil || resp.StatusCode != 201 {
		t.Fatalf("sign-up: %v %v", resp, err)
	}
	mallory, malloryCSRF := logIn(t, base, "mallory", "correct horse battery")
	if code, _ := pageStatus(t, mallory, "GET", base+"/admin", nil, ""); code != 403 {
		t.Fatalf("/admin for another account: %d", code)
	}
	clear := func(csrf string) url.Values { return url.Values{"csrf": {csrf}, "worker": {"skewed-host"}} }
	if code, _ := pageStatus(t, mallory, "POST", base+"/admin/clear", clear(malloryCSRF), base); code != 403 {
		t.Fatalf("a clear by another account: %d", code)
	}

	root, csrf := logIn(t, base, "ops", adminPassword)
	code, body := pageStatus(t, root, "GET", base+"/admin", nil, "")
	if code != 200 || !strings.Contains(body, `data-worker="skewed-host"`) || !strings.Contains(body, "&lt;b&gt;odd&lt;/b&gt;") || strings.Contains(body, "<b>odd</b>") {
		t.Fatalf("/admin for the operator: %d %s", code, body)
	}
	for _, tc := range []struct {
		what, csrf, origin string
	}{
		{"no token", "", base},
		{"another session's token", malloryCSRF, base},
		{"another site's form", csrf, "http://evil.example"},
	} {
		if code, _ := pageStatus(t, root, "POST", base+"/admin/clear", clear(tc.csrf), tc.origin); code != 403 {
			t.Errorf("a clear with %s: %d", tc.what, code)
		}
	}
	if code, body := pageStatus(t, root, "POST", base+"/admin/clear", url.Values{"csrf": {csrf}, "worker": {"no-such-worker"}}, base); code != 404 || !strings.Contains(body, "has lost a vote") {
		t.Errorf("clearing an unknown worker: %d", code)
	}
	if names := operatorList(t, base, dir); !strings.Contains(names, "skewed-host") {
		t.Fatalf("a refused clear cleared: %s", names)
	}
	if code, body := pageStatus(t, root, "POST", base+"/admin/clear", clear(csrf), base); code != 200 || !strings.Contains(body, "skewed-host is back in rotation") {
		t.Fatalf("the operator's clear: %d", code)
	}
	if names := operatorList(t, base, dir); strings.Contains(names, "skewed-host") || !strings.Contains(names, "<b>odd</b>") {
		t.Fatalf("after the clear, the admin API lists %s", names)
	}
}

// operatorList is the names the admin API lists, with the data
// directory's token.
func operatorList(t *testing.T, base, dir string) string {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(dir, server.AdminTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", base+"/api/v1/admin/workers", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Workers []core.AdminWorker }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range out.Workers {
		names = append(names, w.Name)
	}
	return strings.Join(names, " ")
}

// In Chromium: the operator finds the page from the account page, sees
// each worker's standing (a name that is markup shown as text), and clears
// the one out of rotation with its button; another account gets the 403
// page.
func TestBrowserAdminPage(t *testing.T) {
	base, _ := adminPlatform(t)
	ctx := browser(t)
	signUpIn(t, ctx, base, "visitor")
	if eval[bool](t, ctx, "!!document.getElementById('acc-admin')") {
		t.Error("the account page links the operator's page for a visitor")
	}
	steps(t, ctx, "/admin as a visitor", chromedp.Navigate(base+"/admin"))
	if h := eval[string](t, ctx, "document.querySelector('.error-page h1').textContent"); h != "Forbidden" {
		t.Errorf("/admin as a visitor: %q", h)
	}
	shot(t, ctx, "admin-forbidden")
	steps(t, ctx, "logging out", chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#logout")), chromedp.Click(chromedp.CSS("#logout")))
	waitJS(t, ctx, "logged out", "!document.getElementById('acc-out').hidden", 10*time.Second)

	steps(t, ctx, "logging in as the operator", chromedp.SendKeys(chromedp.CSS("#li-handle"), "ops"), chromedp.SendKeys(chromedp.CSS("#li-password"), adminPassword),
		chromedp.Click(chromedp.CSS("#li-submit")))
	waitJS(t, ctx, "the operator's link", "!document.getElementById('acc-in').hidden && document.getElementById('acc-admin')", 20*time.Second)
	steps(t, ctx, "the operator's page", chromedp.Click(chromedp.CSS("#acc-admin")))
	waitJS(t, ctx, "the workers", "document.querySelectorAll('#admin-workers tr[data-worker]').length === 2", 10*time.Second)
	row := func(name string) string {
		return eval[string](t, ctx, "(function(){var r=Array.from(document.querySelectorAll('#admin-workers tr[data-worker]')).filter(function(tr){return tr.getAttribute('data-worker')==="+jsString(name)+"})[0];return r?r.textContent.replace(/\\s+/g,' '):''})()")
	}
	if r := row("skewed-host"); !strings.Contains(r, "out since 2026-11-30 12:00 UTC") || !strings.Contains(r, "3 of 3") || !strings.Contains(r, "3, 5, 9") || !strings.Contains(r, "not running") {
		t.Errorf("the held worker's row: %q", r)
	}
	if r := row("<b>odd</b>"); !strings.Contains(r, "in") || !strings.Contains(r, "1 of 3") {
		t.Errorf("the markup-named worker's row: %q", r)
	}
	if n := eval[int](t, ctx, "document.querySelectorAll('#admin-workers b').length"); n != 0 {
		t.Errorf("a worker's name became markup")
	}
	shot(t, ctx, "admin-workers")
	eval[any](t, ctx, `document.querySelector('#admin-workers tr[data-worker="skewed-host"] button').click()`)
	waitJS(t, ctx, "the clear", "document.getElementById('admin-msg') && document.querySelectorAll('#admin-workers tr[data-worker]').length === 1", 10*time.Second)
	if m := eval[string](t, ctx, "document.getElementById('admin-msg').textContent"); !strings.Contains(m, "skewed-host is back in rotation") {
		t.Errorf("after the clear: %q", m)
	}
	shot(t, ctx, "admin-cleared")
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }
