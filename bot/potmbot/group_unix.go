//go:build unix

package potmbot

import (
	"os"
	"syscall"
)

// newGroup starts an entry in a process group of its own, so that a kill
// reaches whatever it started.
func newGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the entry's whole process group.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
