//go:build unix && !linux

package procgroup

import "syscall"

// Attr starts a program in a process group of its own. Only Linux can also
// tie its life to the platform's (Pdeathsig); elsewhere a program left
// behind by a platform that was killed outright runs on.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
