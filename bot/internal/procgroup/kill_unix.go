//go:build unix

package procgroup

import (
	"os"
	"syscall"
)

// Kill kills the program's whole process group.
func Kill(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
