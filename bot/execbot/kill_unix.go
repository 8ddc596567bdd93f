//go:build unix

package execbot

import (
	"os"
	"syscall"
)

// killGroup kills the program's whole process group.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
