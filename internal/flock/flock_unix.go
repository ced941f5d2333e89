//go:build unix

package flock

import (
	"errors"
	"os"
	"syscall"
)

// try takes flock(2)'s lock on f without blocking.
func try(f *os.File, exclusive bool) (held bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
