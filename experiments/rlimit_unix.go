//go:build unix

package experiments

import "syscall"

// rlimitAS is the soft RLIMIT_AS (ulimit -v) in bytes, when one is set.
func rlimitAS() (float64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= unlimited {
		return 0, false
	}
	return float64(r.Cur), true
}
