package potmbot

import (
	"os"
	"syscall"
)

// newGroup starts an entry in a process group of its own (Ctrl-C in the
// console does not reach it).
func newGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the entry. Windows has no process-group kill: a child the
// entry started runs on (docs/cli.md says so).
func killGroup(p *os.Process) {
	p.Kill()
}
