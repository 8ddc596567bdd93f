package execbot

import "syscall"

// processGroup starts a program in a process group of its own, killed with
// the platform (Pdeathsig).
func processGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
