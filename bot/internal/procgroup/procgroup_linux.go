package procgroup

import "syscall"

// Attr starts a program in a process group of its own, killed with the
// platform (Pdeathsig), so that no bot outlives it.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
