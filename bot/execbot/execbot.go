// Package execbot runs a native program as a bot: the exec: kind, for local
// development from the command line. The program is trusted (it runs with the
// user's rights) but held to the protocol: one JSON line in, one line out
// within the wall-clock limit, restarted after a failure, retired after
// bot.MaxRestarts restarts.
package execbot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/internal/procgroup"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/hashing"
)

// DefaultTimeout is the wall-clock limit per answer.
const DefaultTimeout = 2 * time.Second

// Bot is an exec: bot.
type Bot struct {
	*bot.Supervised
	id bot.Identity
}

// Open prepares the bot for command, split into words (no shell). The program
// starts when it is first asked.
func Open(command string, m bot.Match) (*Bot, error) {
	return OpenWithTimeout(command, DefaultTimeout)
}

// OpenWithTimeout is Open with another wall-clock limit per answer.
func OpenWithTimeout(command string, timeout time.Duration) (*Bot, error) {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, notFound(argv[0], err)
	}
	id := bot.Identity{Spec: spec.Spec{Kind: spec.Exec, Command: command}.String()}
	if sum, err := hashing.FileSHA256(path); err == nil {
		id.SHA256 = sum
	}
	log := &bot.Log{}
	start := func(ctx context.Context) (bot.Process, error) {
		return startProcess(path, argv, log, timeout)
	}
	return &Bot{Supervised: bot.NewSupervised(start, log), id: id}, nil
}

// Identity names the program and the hash of its file.
func (b *Bot) Identity() bot.Identity { return b.id }

// process is one running instance of the program.
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File
	lines   chan lineResult
	exited  chan struct{}
	stopped chan struct{} // closed by Stop: nobody reads lines any more
	timeout time.Duration
}

type lineResult struct {
	line []byte
	err  error // io.EOF: stdout closed; errLineTooLong
}

var errLineTooLong = fmt.Errorf("answer line longer than %d bytes", bot.MaxLine)

func startProcess(path string, argv []string, log *bot.Log, timeout time.Duration) (*process, error) {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args = argv
	// A process group of its own, so a kill reaches whatever it started, and
	// (on Linux) death with the platform so no bot outlives it.
	cmd.SysProcAttr = procgroup.Attr()
	cmd.Stderr = log
	cmd.WaitDelay = time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, lines: make(chan lineResult, 4), exited: make(chan struct{}), stopped: make(chan struct{}), timeout: timeout}
	go p.readLines(outR)
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// readLines turns stdout into answer lines until it closes or a line is too long.
func (p *process) readLines(out *os.File) {
	defer out.Close()
	r := bufio.NewReaderSize(out, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case len(line) > bot.MaxLine+1 || (len(line) > bot.MaxLine && line[len(line)-1] != '\n'):
			p.send(lineResult{line: line[:bot.MaxLine], err: errLineTooLong})
			return
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			p.send(lineResult{line: line, err: io.EOF})
			return
		}
		if !p.send(lineResult{line: trimEOL(line)}) {
			return
		}
		line = nil
	}
}

// send hands a line to Ask, or gives up once the process is stopped.
func (p *process) send(res lineResult) bool {
	select {
	case p.lines <- res:
		return true
	case <-p.stopped:
		return false
	}
}

func trimEOL(line []byte) []byte {
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// Ask writes the observation and waits for one line, at most the timeout.
func (p *process) Ask(ctx context.Context, req bot.Request) bot.Reply {
	deadline := time.Now().Add(p.timeout)
	p.stdin.SetWriteDeadline(deadline)
	msg := append(append(make([]byte, 0, len(req.Observation)+1), req.Observation...), '\n')
	if _, err := p.stdin.Write(msg); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return bot.Reply{Status: game.Timeout, Detail: "did not read its observation in time"}
		}
		return bot.Reply{Status: game.Crash, Detail: "stdin closed: " + p.exitDetail()}
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case res := <-p.lines:
		switch {
		case res.err == errLineTooLong:
			return bot.Reply{Status: game.Malformed, Line: res.line, Detail: res.err.Error()}
		case res.err != nil:
			return bot.Reply{Status: game.Crash, Line: res.line, Detail: "stdout closed: " + p.exitDetail()}
		}
		return bot.Reply{Status: game.OK, Line: res.line}
	case <-timer.C:
		return bot.Reply{Status: game.Timeout, Detail: fmt.Sprintf("no answer within %v", p.timeout)}
	case <-ctx.Done():
		return bot.Reply{Status: game.Timeout, Detail: "match cancelled"}
	}
}

// exitDetail describes how the program ended, waiting briefly for it to.
func (p *process) exitDetail() string {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.String()
	case <-time.After(100 * time.Millisecond):
		return "still running"
	}
}

// Stop kills the program's whole process group and reaps it.
func (p *process) Stop() {
	select {
	case <-p.stopped:
		return
	default:
		close(p.stopped)
	}
	if p.cmd.Process != nil {
		procgroup.Kill(p.cmd.Process)
	}
	p.stdin.Close()
	<-p.exited
}

// notFound explains a program that is not there. A bare name is looked up
// on $PATH only, as a shell does, which surprises someone who meant the
// program in the current folder.
func notFound(name string, err error) error {
	if !strings.ContainsRune(name, '/') {
		if st, serr := os.Stat(name); serr == nil && !st.IsDir() {
			return fmt.Errorf("program %q is not on $PATH; for the one in this folder write exec:./%s", name, name)
		}
		return fmt.Errorf("program %q is not on $PATH (write a path, like exec:./%s, for a program elsewhere)", name, name)
	}
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("program %s: no such file", name)
	}
	if errors.Is(err, os.ErrPermission) || errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("program %s is not an executable file (chmod +x?)", name)
	}
	return fmt.Errorf("program %s: %w", name, err)
}
