// Package spec is a bot's SPEC as a value: its kind and that kind's fields.
// The text form (builtin:NAME, wasm:PATH, exec:COMMAND, potm:PATH,
// house:NAME, battlesnake:URL, human:NAME) is what the command line takes
// and what replays record; Parse is the one place that reads it and
// Spec.String the one place that writes it. Everything else passes Specs.
//
// This package opens nothing: an Opener does, and each caller picks its
// own (package bot/local opens every kind on this machine; a worker opens
// house bots and modules by sha256 only). So a package can name bots
// without linking the code that starts native programs.
package spec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arenabots/arena/bot"
)

// Kind is the kind of a bot: what its spec's text starts with.
type Kind uint8

// The kinds of bot. The zero Kind is none: a Spec{} names no bot.
const (
	Builtin     Kind = iota + 1 // builtin:NAME, a game's native house bot
	Exec                        // exec:COMMAND, a program on this machine
	Wasm                        // wasm:PATH, a WebAssembly module, metered
	Potm                        // potm:PATH, a 2006 contest entry
	Battlesnake                 // battlesnake:URL, a Battlesnake server
	House                       // house:NAME, the ladder's wasm module for a house bot
	Human                       // human:NAME, a person at the site
)

var kindNames = [...]string{Builtin: "builtin", Exec: "exec", Wasm: "wasm", Potm: "potm", Battlesnake: "battlesnake", House: "house", Human: "human"}

// cliKinds are the kinds the command line offers, in the order its help
// and its errors list them (a human seat is the site's only).
var cliKinds = []Kind{Builtin, Exec, Wasm, Potm, Battlesnake, House}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Metered says whether a bot of this kind spends fuel: a wasm module,
// given by its path or its sha256 or as a house ladder entry. Only such a
// bot's replay figures follow a fuel cost model.
func (k Kind) Metered() bool { return k == Wasm || k == House }

// Native says whether opening a bot of this kind starts a program of the
// machine's own: a replay, which is data from anyone, must not do so unasked.
func (k Kind) Native() bool { return k == Exec || k == Potm }

// Spec names one bot. Each kind uses one of Name, Path, Command and URL,
// and SHA256 when the bytes behind it are known.
type Spec struct {
	Kind    Kind
	Name    string // Builtin, House, Human: the bot's name
	Path    string // Wasm, Potm: the file
	Command string // Exec: the command line, split into words (no shell)
	URL     string // Battlesnake: the server
	// SHA256 is, when set, the sha256 of the file the bot must be (the
	// module, the program): it is not part of the text form (a replay
	// keeps it beside the spec) and Seats refuses a bot whose file has
	// other bytes. A Wasm spec with SHA256 and no Path is the module with
	// that hash, wherever it is kept: its text form is wasm:SHA256, as
	// the server's replays name modules.
	SHA256 string
}

// arg is the text after the kind's colon.
func (s Spec) arg() string {
	switch s.Kind {
	case Builtin, House, Human:
		return s.Name
	case Wasm:
		if s.Path == "" {
			return s.SHA256
		}
		return s.Path
	case Potm:
		return s.Path
	case Exec:
		return s.Command
	case Battlesnake:
		return s.URL
	}
	return ""
}

// String is the spec's text form, which Parse reads back.
func (s Spec) String() string {
	return s.Kind.String() + ":" + s.arg()
}

// ErrSyntax is what every Parse error wraps.
var ErrSyntax = errors.New("not a bot spec")

// syntaxError says what is wrong with a spec's text.
type syntaxError struct {
	text, why string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("bot %q: %s", e.text, e.why) }
func (e *syntaxError) Unwrap() error { return ErrSyntax }

// kindList names the command line's kinds for an error message.
func kindList() string {
	names := make([]string, len(cliKinds))
	for i, k := range cliKinds {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// Parse reads a spec's text form. It is the only parser of specs: at the
// edge (command-line flags, replay files, stored rows, jobs) text becomes
// a Spec, and nothing past it looks at prefixes. An accepted text is the
// String of the Spec it gives, byte for byte. The fields are checked only
// as far as text can be: a name is one word, a path or a command is valid
// UTF-8 without NUL bytes (what a replay's JSON keeps exactly and a system
// call takes); whether the file, program or house bot exists is the
// opener's question.
func Parse(text string) (Spec, error) {
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, &syntaxError{text, fmt.Sprintf(format, args...)}
	}
	name, arg, ok := strings.Cut(text, ":")
	if !ok {
		why := "want KIND:ARG with KIND one of " + kindList()
		if text != "" {
			why += " (did you mean " + guess(text) + "?)"
		}
		return bad("%s", why)
	}
	var kind Kind
	for k, n := range kindNames {
		if n != "" && n == name {
			kind = Kind(k)
		}
	}
	if kind == 0 {
		return bad("unknown kind %q: want one of %s", name, kindList())
	}
	if arg == "" {
		return bad("nothing after %q: want %s", name+":", usage(kind))
	}
	if !utf8.ValidString(arg) {
		return bad("%s is not valid UTF-8", what(kind))
	}
	if strings.ContainsRune(arg, 0) {
		return bad("%s holds a NUL byte", what(kind))
	}
	s := Spec{Kind: kind}
	switch kind {
	case Builtin, House, Human:
		if i := strings.IndexFunc(arg, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
			r, _ := utf8.DecodeRuneInString(arg[i:])
			return bad("the name holds %q at byte %d: a bot's name is one word", r, i)
		}
		s.Name = arg
	case Wasm, Potm:
		s.Path = arg
	case Exec:
		if strings.TrimSpace(arg) == "" {
			return bad("the command is only white space")
		}
		s.Command = arg
	case Battlesnake:
		s.URL = arg
	}
	return s, nil
}

// usage is what follows a kind's colon, for an error message.
func usage(k Kind) string {
	switch k {
	case Builtin, House, Human:
		return k.String() + ":NAME"
	case Wasm, Potm:
		return k.String() + ":PATH"
	case Exec:
		return k.String() + ":COMMAND"
	}
	return k.String() + ":URL"
}

// what names a kind's argument, for an error message.
func what(k Kind) string {
	switch k {
	case Builtin, House, Human:
		return "the name"
	case Wasm, Potm:
		return "the path"
	case Exec:
		return "the command"
	}
	return "the URL"
}

// guess is the spec a text without a kind most likely meant.
func guess(text string) string {
	switch {
	case strings.HasSuffix(text, ".wasm"):
		return Spec{Kind: Wasm, Path: text}.String()
	case strings.ContainsRune(text, '/'):
		return Spec{Kind: Exec, Command: text}.String()
	}
	return Spec{Kind: Builtin, Name: text}.String()
}

// ParseAll parses specs given in seat order.
func ParseAll(texts []string) ([]Spec, error) {
	out := make([]Spec, len(texts))
	for i, t := range texts {
		s, err := Parse(t)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// MustParseAll is ParseAll for specs written in the program itself (tests,
// fixed matches): it panics on an error.
func MustParseAll(texts ...string) []Spec {
	out, err := ParseAll(texts)
	if err != nil {
		panic(err)
	}
	return out
}

// An Opener opens the bot a spec names for one seat of one match.
type Opener interface {
	Open(ctx context.Context, s Spec, m bot.Match) (bot.Bot, error)
}

// MismatchError is a bot whose file is not the one its spec's SHA256
// names (a file changed after it was hashed, or another file at the path).
type MismatchError struct {
	Spec Spec
	Got  string // the sha256 of the file opened
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("bot %q: its file has sha256 %s, not the expected %s", e.Spec, e.Got, e.Spec.SHA256)
}

// Seats is the match runner's opener for the seats' bots, specs[i] in seat
// i, each opened by o. The replay names a bot by its spec's text and, when
// the bot has a file (bot.Identifier), by the file's sha256 and the fuel
// cost model its figures follow; a spec with a SHA256 opens only a file
// with those bytes.
func Seats(specs []Spec, o Opener) bot.Opener {
	return func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
		if m.Seat < 0 || m.Seat >= len(specs) {
			return nil, bot.Identity{}, fmt.Errorf("no bot given for seat %d", m.Seat)
		}
		s := specs[m.Seat]
		b, err := o.Open(ctx, s, m)
		if err != nil {
			return nil, bot.Identity{}, fmt.Errorf("bot %q: %w", s, err)
		}
		id := bot.Identity{Spec: s.String()}
		if withID, ok := b.(bot.Identifier); ok {
			own := withID.Identity()
			id.SHA256, id.CostModel = own.SHA256, own.CostModel
		}
		if s.SHA256 != "" && id.SHA256 != s.SHA256 {
			b.Close()
			return nil, bot.Identity{}, &MismatchError{Spec: s, Got: id.SHA256}
		}
		return b, id, nil
	}
}
