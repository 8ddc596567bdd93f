package procgroup

import (
	"os"
	"syscall"
)

// Attr starts a program in a process group of its own (Ctrl-C in the
// console does not reach it).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Kill kills the program. Windows has no process-group kill: a child the
// program started runs on (docs/cli.md says so).
func Kill(p *os.Process) {
	p.Kill()
}
