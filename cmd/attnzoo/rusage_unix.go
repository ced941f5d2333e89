//go:build unix

package main

import "syscall"

// minorFaults is the process's minor page faults so far (getrusage): pages
// the kernel had to find and zero because the process touched memory it
// had not touched before (or had given back).
func minorFaults() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return int64(ru.Minflt)
}
