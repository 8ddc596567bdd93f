package sdk

import (
	"encoding/json"
	"io"
	"os"
)

// RunTyped is Run for a bot that decodes each observation into its own
// struct O with encoding/json and answers with an action A encoded the same
// way. It is simple, and dear in a wasm bot: about a million fuel an answer
// for a Dots and Boxes observation, where Run with JSON costs a few
// thousand. It is not in the starter kits' copy of the SDK.
func RunTyped[O, A any](play func(obs O) A) {
	if err := Loop(os.Stdin, os.Stdout, play); err != nil {
		fail("sdk: " + err.Error())
	}
}

// Loop is RunTyped on any reader and writer, for tests. An observation that
// does not decode into O is logged to stderr and answered with "{}", so the
// bot loses that turn (the game's default applies) but stays in step with
// the platform: one answer line per observation line, always. When O is
// JSON, play gets a copy of the line, undecoded.
func Loop[O, A any](in io.Reader, out io.Writer, play func(obs O) A) error {
	return LoopLines(in, out, func(line []byte) []byte {
		var obs O
		if raw, ok := any(&obs).(*JSON); ok {
			*raw = append(JSON(nil), line...) // the line's buffer is reused
		} else if err := json.Unmarshal(line, &obs); err != nil {
			os.Stderr.WriteString("sdk: bad observation: " + err.Error() + "\n")
			return []byte("{}")
		}
		action, err := json.Marshal(play(obs))
		if err != nil {
			os.Stderr.WriteString("sdk: cannot encode the action: " + err.Error() + "\n")
			return []byte("{}")
		}
		return action
	})
}
