package spec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/games/dotsandboxes"
)

// Every text the command line, the site and the server write parses to
// the spec with its fields, and that spec's String is the text again.
func TestParseRoundTrips(t *testing.T) {
	sha := strings.Repeat("0f", 32)
	for _, c := range []struct {
		text string
		want spec.Spec
	}{
		{"builtin:greedy", spec.Spec{Kind: spec.Builtin, Name: "greedy"}},
		{"builtin:search-easy", spec.Spec{Kind: spec.Builtin, Name: "search-easy"}},
		{"house:chains", spec.Spec{Kind: spec.House, Name: "chains"}},
		{"human:you", spec.Spec{Kind: spec.Human, Name: "you"}},
		{"wasm:bot.wasm", spec.Spec{Kind: spec.Wasm, Path: "bot.wasm"}},
		{"wasm:/tmp/my bots/été.wasm", spec.Spec{Kind: spec.Wasm, Path: "/tmp/my bots/été.wasm"}},
		{"wasm:C:\\bots\\a.wasm", spec.Spec{Kind: spec.Wasm, Path: "C:\\bots\\a.wasm"}},
		// The server names a module by its sha256: the text cannot tell
		// it from a path, and the replay's sha256 field says which bytes.
		{"wasm:" + sha, spec.Spec{Kind: spec.Wasm, Path: sha}},
		{"exec:./mybot --level 3", spec.Spec{Kind: spec.Exec, Command: "./mybot --level 3"}},
		{"exec: python3  bot.py ", spec.Spec{Kind: spec.Exec, Command: " python3  bot.py "}},
		{"potm:entries/tom", spec.Spec{Kind: spec.Potm, Path: "entries/tom"}},
		{"battlesnake:http://127.0.0.1:8000/snake", spec.Spec{Kind: spec.Battlesnake, URL: "http://127.0.0.1:8000/snake"}},
		{"builtin:a:b", spec.Spec{Kind: spec.Builtin, Name: "a:b"}},
	} {
		got, err := spec.Parse(c.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.text, err)
			continue
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %#v, want %#v", c.text, got, c.want)
		}
		if s := got.String(); s != c.text {
			t.Errorf("Parse(%q).String() = %q", c.text, s)
		}
	}
}

// A module known by its sha256 alone is written as the server's replays
// name it; the hash never shows in the text of a spec with a path.
func TestStringOfAModuleByHash(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	if got := (spec.Spec{Kind: spec.Wasm, SHA256: sha}).String(); got != "wasm:"+sha {
		t.Errorf("by hash: %q", got)
	}
	if got := (spec.Spec{Kind: spec.Wasm, Path: "a.wasm", SHA256: sha}).String(); got != "wasm:a.wasm" {
		t.Errorf("by path with a hash: %q", got)
	}
}

// Parse refuses what names no bot, saying what is wrong, and every refusal
// is an ErrSyntax.
func TestParseRefuses(t *testing.T) {
	kinds := "builtin, exec, wasm, potm, battlesnake, house"
	for _, c := range []struct {
		text, want string
	}{
		{"", `bot "": want KIND:ARG with KIND one of ` + kinds},
		{"random", `bot "random": want KIND:ARG with KIND one of ` + kinds + ` (did you mean builtin:random?)`},
		{"bot.wasm", "(did you mean wasm:bot.wasm?)"},
		{"./mybot", "(did you mean exec:./mybot?)"},
		{"docker:x", `bot "docker:x": unknown kind "docker": want one of ` + kinds},
		{"WASM:x.wasm", `unknown kind "WASM"`},
		{" wasm:x.wasm", `unknown kind " wasm"`},
		{":x", `unknown kind ""`},
		{"wasm:", `bot "wasm:": nothing after "wasm:": want wasm:PATH`},
		{"builtin:", "want builtin:NAME"},
		{"exec:", "want exec:COMMAND"},
		{"battlesnake:", "want battlesnake:URL"},
		{"exec:   ", "the command is only white space"},
		{"builtin:two words", `the name holds ' ' at byte 3: a bot's name is one word`},
		{"house:a\tb", `the name holds '\t' at byte 1`},
		{"human:x\x1b[2J", `the name holds '\x1b' at byte 1`},
		{"wasm:a\x00b", "the path holds a NUL byte"},
		{"exec:./bot \xff", "the command is not valid UTF-8"},
	} {
		s, err := spec.Parse(c.text)
		if err == nil {
			t.Errorf("Parse(%q) = %#v, want an error", c.text, s)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %q, want it to say %q", c.text, err, c.want)
		}
		if !errors.Is(err, spec.ErrSyntax) {
			t.Errorf("Parse(%q): %v is not an ErrSyntax", c.text, err)
		}
	}
}

func TestKinds(t *testing.T) {
	for _, c := range []struct {
		kind            spec.Kind
		metered, native bool
	}{
		{spec.Builtin, false, false}, {spec.House, true, false}, {spec.Wasm, true, false},
		{spec.Exec, false, true}, {spec.Potm, false, true}, {spec.Battlesnake, false, false}, {spec.Human, false, false},
	} {
		if c.kind.Metered() != c.metered || c.kind.Native() != c.native {
			t.Errorf("%s: metered %v native %v, want %v %v", c.kind, c.kind.Metered(), c.kind.Native(), c.metered, c.native)
		}
	}
	if got := spec.Kind(0).String(); got != "kind(0)" {
		t.Errorf("the zero kind is %q", got)
	}
	if _, err := spec.Parse(spec.Spec{}.String()); err == nil {
		t.Error("the zero Spec's text parses")
	}
}

func TestParseAll(t *testing.T) {
	got, err := spec.ParseAll([]string{"builtin:random", "wasm:a.wasm"})
	if err != nil || len(got) != 2 || got[1].Path != "a.wasm" {
		t.Fatalf("%v, %v", got, err)
	}
	if _, err := spec.ParseAll([]string{"builtin:random", "nope"}); err == nil || !strings.Contains(err.Error(), `bot "nope"`) {
		t.Fatalf("a bad second spec: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParseAll of a bad spec did not panic")
		}
	}()
	spec.MustParseAll("nope")
}

// FuzzParse: whatever the text, Parse gives an error or a spec whose text
// is the input again, and which parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"builtin:greedy", "wasm:a.wasm", "exec:./bot -x", "potm:e/tom", "house:chains",
		"battlesnake:http://h:1/", "human:you", "random", "", ":", "wasm:", "builtin:a b", "exec:\xff", "wasm:\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := spec.Parse(text)
		if err != nil {
			if s != (spec.Spec{}) {
				t.Fatalf("Parse(%q) failed (%v) but returned %#v", text, err, s)
			}
			if !errors.Is(err, spec.ErrSyntax) {
				t.Fatalf("Parse(%q): %v is not an ErrSyntax", text, err)
			}
			return
		}
		if s.String() != text {
			t.Fatalf("Parse(%q).String() = %q", text, s.String())
		}
		again, err := spec.Parse(s.String())
		if err != nil || again != s {
			t.Fatalf("Parse(%q) = %#v, but its text parses to %#v, %v", text, s, again, err)
		}
		if s.Kind.String() != text[:strings.IndexByte(text, ':')] {
			t.Fatalf("Parse(%q): kind %s", text, s.Kind)
		}
	})
}

// fixed opens every spec as one bot with a file of the given sha256.
type fixed struct{ sha string }

type fileBot struct {
	sha    string
	closed *bool
}

func (b fileBot) Act(context.Context, bot.Request) bot.Reply { return bot.Reply{} }
func (b fileBot) Close() []byte                              { *b.closed = true; return nil }
func (b fileBot) Identity() bot.Identity                     { return bot.Identity{SHA256: b.sha, CostModel: 7} }

var lastClosed bool

func (o fixed) Open(context.Context, spec.Spec, bot.Match) (bot.Bot, error) {
	lastClosed = false
	return fileBot{o.sha, &lastClosed}, nil
}

// Seats names each seat's bot by its spec's text and its file's hash and
// cost model, and refuses (closing it) a bot whose file is not the one the
// spec's SHA256 names.
func TestSeats(t *testing.T) {
	sha, other := strings.Repeat("1", 64), strings.Repeat("2", 64)
	m := bot.Match{Game: dotsandboxes.Game{}, Seat: 1}
	specs := []spec.Spec{{Kind: spec.Builtin, Name: "random"}, {Kind: spec.Wasm, Path: "a.wasm", SHA256: sha}}
	_, id, err := spec.Seats(specs, fixed{sha})(context.Background(), m)
	if err != nil || id != (bot.Identity{Spec: "wasm:a.wasm", SHA256: sha, CostModel: 7}) {
		t.Fatalf("%+v, %v", id, err)
	}
	_, _, err = spec.Seats(specs, fixed{other})(context.Background(), m)
	var mm *spec.MismatchError
	if !errors.As(err, &mm) || mm.Got != other || !lastClosed {
		t.Fatalf("another file: %v (closed %v)", err, lastClosed)
	}
	if !strings.Contains(err.Error(), `bot "wasm:a.wasm": its file has sha256 `+other+", not the expected "+sha) {
		t.Errorf("the mismatch says %q", err)
	}
	m.Seat = 2
	if _, _, err := spec.Seats(specs, fixed{sha})(context.Background(), m); err == nil || !strings.Contains(err.Error(), "no bot given for seat 2") {
		t.Errorf("seat 2 of 2: %v", err)
	}
}
