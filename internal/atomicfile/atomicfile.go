// Package atomicfile writes files so that a reader, or a crash, never sees
// a half-written one: the data goes to a temporary file beside the target,
// is synced, and is renamed over the target.
//
// The temporary file is created with mode 0666 filtered by the process's
// umask, as os.Create does, so results come out readable by others under
// the usual umask 022 (mode 0644), not 0600 as os.CreateTemp would leave
// them.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// TempPattern is the glob of the temporary files Write leaves behind when
// the process is killed mid-write (never renamed into place, safe to
// delete): ".NAME.tmp" followed by a random number.
const TempPattern = ".*.tmp*"

// Write writes data to path atomically.
func Write(path string, data []byte) error {
	return WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc writes what fill writes, buffered, to path atomically; when
// fill fails, path is left as it was.
func WriteFunc(path string, fill func(w io.Writer) error) error {
	f, err := create(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 1<<20)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// create opens a new temporary file ".NAME.tmpRANDOM" beside path with
// mode 0666 before the umask.
func create(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "create temporary file for", Path: path, Err: fs.ErrExist}
}
