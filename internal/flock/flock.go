// Package flock takes advisory locks on files: flock(2) where the system
// has it (flock_unix.go), none elsewhere (every lock is granted). An
// advisory lock binds only processes that ask for it; the kernel drops it
// when its holder exits, however it exits.
package flock

import "os"

// Lock is a lock held on an open file.
type Lock struct{ f *os.File }

// TryLock opens (creating it, mode 0666 less the umask) the file at path
// and takes a lock on it without waiting: exclusive, or else shared. held
// reports that another holder's lock stands in the way (l is then nil).
func TryLock(path string, exclusive bool) (l *Lock, held bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, false, err
	}
	held, err = try(f, exclusive)
	if err != nil || held {
		f.Close()
		return nil, held, err
	}
	return &Lock{f}, false, nil
}

// Write replaces the locked file's content with text (who holds it, for
// those refused to read).
func (l *Lock) Write(text string) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(text), 0)
	return err
}

// Close releases the lock. The file stays: removing it would let a process
// that opened it before the removal lock a file no one else can find.
func (l *Lock) Close() error { return l.f.Close() }
