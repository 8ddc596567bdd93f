package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// signUpIn signs a new account up on the account page and waits until the
// page says it is logged in.
func signUpIn(t *testing.T, ctx context.Context, base, handle string) {
	t.Helper()
	steps(t, ctx, "signing up "+handle, chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#signup")),
		chromedp.SendKeys(chromedp.CSS("#su-handle"), handle), chromedp.SendKeys(chromedp.CSS("#su-password"), "correct horse battery"),
		chromedp.Click(chromedp.CSS("#su-submit")))
	waitJS(t, ctx, "logged in", "!document.getElementById('acc-in').hidden", 20*time.Second)
}

// watchUpload records, in the page, whether the upload's answers were on
// the page before its verdict: a page that drew the whole stream at its
// end would show both at once.
const watchUpload = `window.liveBeforeVerdict = false;
new MutationObserver(function () {
  var v = document.getElementById('nb-verdict');
  if (document.querySelector('#nb-answers tbody tr') && v && !v.firstChild) window.liveBeforeVerdict = true;
}).observe(document.getElementById('nb-result'), { childList: true, subtree: true });`

// The upload page streams the check: its steps, the bot's first answers
// with status and fuel while the smoke match is played, then the verdict;
// a hostile bot's answers are shown as text, cut, and its refusal says why;
// a module over the limit is refused in the browser before it is sent.
func TestBrowserUploadStreamsItsCheck(t *testing.T) {
	kit := wasmtest.GoBuild(t, "../../games/dotsandboxes/kits/go/dots-and-boxes", "")
	hostile := wasmtest.GoBuild(t, "../server/testdata/hostile", "")
	base := platform(t, func(o *server.Options) { o.NoMatchmaker = true })
	ctx := browser(t)
	signUpIn(t, ctx, base, "streamer")

	upload := func(name, file string) {
		t.Helper()
		steps(t, ctx, "uploading "+name, chromedp.Navigate(base+"/bots/new?game=dots-and-boxes"), chromedp.WaitVisible(chromedp.CSS("#upload")))
		eval[any](t, ctx, watchUpload)
		steps(t, ctx, "sending "+name, chromedp.SendKeys(chromedp.CSS("#nb-name"), name), chromedp.SetUploadFiles(chromedp.CSS("#nb-file"), []string{file}),
			chromedp.Click(chromedp.CSS("#nb-submit")))
	}
	stepsText := func() string { return eval[string](t, ctx, "document.getElementById('nb-steps').textContent") }

	upload("streamed", kit)
	waitJS(t, ctx, "the compile step", "/compiling the module/.test(document.getElementById('nb-steps').textContent)", 20*time.Second)
	waitJS(t, ctx, "the first answer", "document.querySelector('#nb-answers tbody tr') && !document.getElementById('nb-answers').hidden", 60*time.Second)
	waitJS(t, ctx, "the verdict", "document.querySelector('#nb-verdict .ok-msg')", 90*time.Second)
	shot(t, ctx, "upload-streamed-ok")
	if !eval[bool](t, ctx, "window.liveBeforeVerdict") {
		t.Error("the answers were not on the page before the verdict")
	}
	for _, want := range []string{"compiled", "Smoke match", "@house/", "a worker is playing the smoke match"} {
		if s := stepsText(); !strings.Contains(s, want) {
			t.Errorf("the steps %q do not say %q", s, want)
		}
	}
	row := eval[[]string](t, ctx, "Array.from(document.querySelector('#nb-answers tbody tr').children).map(function(td){return td.textContent})")
	if len(row) != 4 || row[0] != "1" || (row[1] != "ok" && row[1] != "ignored") || row[2] == "0" || !strings.Contains(row[3], "orient") {
		t.Errorf("the first answer's row: %q", row)
	}
	if n := eval[int](t, ctx, "document.querySelectorAll('#nb-answers tbody tr').length"); n < 2 || n > 20 {
		t.Errorf("%d answers shown; want the first ones, at most 20", n)
	}
	if p := eval[string](t, ctx, "document.getElementById('nb-progress').textContent"); !strings.HasPrefix(p, "Turn ") {
		t.Errorf("the turn count: %q", p)
	}

	upload("hostile", hostile)
	waitJS(t, ctx, "the hostile answers", "document.querySelector('#nb-answers tbody tr')", 60*time.Second)
	waitJS(t, ctx, "the refusal", "document.querySelector('#nb-verdict .err-msg')", 90*time.Second)
	shot(t, ctx, "upload-streamed-refused")
	if !eval[bool](t, ctx, "window.liveBeforeVerdict") {
		t.Error("the hostile bot's answers were not on the page before its refusal")
	}
	if v := eval[string](t, ctx, "document.getElementById('nb-verdict').textContent"); !strings.Contains(v, "was refused") || !strings.Contains(v, "Malformed answers") {
		t.Errorf("the refusal says %q", v)
	}
	code := eval[string](t, ctx, "document.querySelector('#nb-answers tbody tr code').textContent")
	if !strings.HasPrefix(code, `<img src=x onerror=`) || !strings.Contains(code, "… (380 bytes)") {
		t.Errorf("the hostile answer as shown: %q", code)
	}
	if n := eval[int](t, ctx, "document.querySelectorAll('#nb-result img, #nb-result script').length"); n != 0 || eval[string](t, ctx, "document.title") == "pwned" {
		t.Errorf("the bot's answer became markup: %d elements, title %q", n, eval[string](t, ctx, "document.title"))
	}
	if s := eval[string](t, ctx, "document.querySelector('#nb-answers tbody tr .st').textContent"); s != "malformed" && s != "ignored" {
		t.Errorf("the hostile answer's status: %q", s)
	}

	// Over the limit: said beside the field, nothing sent.
	big := filepath.Join(t.TempDir(), "big.wasm")
	if err := os.WriteFile(big, make([]byte, 33<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	upload("big", big)
	if e := eval[string](t, ctx, "(function(){var e=document.getElementById('nb-file').closest('label').querySelector('.field-err');return e&&!e.hidden?e.textContent:''})()"); !strings.Contains(e, "at most 32.0 MiB") {
		t.Errorf("the file's message: %q", e)
	}
	if n := eval[int](t, ctx, "performance.getEntriesByType('resource').filter(function(e){return e.name.indexOf('/bots/big')>=0}).length"); n != 0 {
		t.Errorf("a module the page knew was too large was sent %d times", n)
	}
}
