package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/attnzoo/attnzoo/internal/flock"
)

// An experiment folder has one writer: a sweep takes an advisory lock
// (flock) on <out>/<name>/.lock before it writes anything there, and holds
// it to its end. An unsharded sweep locks it exclusively. The shards of a
// sweep lock it shared, so that they run side by side into one folder but
// never beside an unsharded sweep, and each locks its own shard's file,
// .lock-shard-I-of-N, exclusively, so that no shard runs twice at once;
// shards of another count, whose runs would overlap, are refused. Each
// exclusive lock's file holds its holder (pid, host, start time, command),
// which a refusal names. The kernel drops a lock when its process exits,
// however it exits: a killed sweep leaves no lock behind.
const lockFile = ".lock"

// shardLockRe matches a shard's lock file, capturing I and N.
var shardLockRe = regexp.MustCompile(`^\.lock-shard-(\d+)-of-(\d+)$`)

// lockFolder takes dir's locks for shard of shards (shards ≤ 1: the whole
// sweep) and returns their release.
func lockFolder(dir string, shard, shards int) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	who := fmt.Sprintf("pid %d on %s since %s (%s)", os.Getpid(), host, time.Now().Format(time.RFC3339), strings.Join(os.Args, " "))
	if shards <= 1 {
		l, held, err := flock.TryLock(filepath.Join(dir, lockFile), true)
		if err != nil {
			return nil, fmt.Errorf("experiments: lock %s: %w", dir, err)
		}
		if held {
			return nil, lockedError(dir, shardHolders(dir, 0))
		}
		return func() { l.Close() }, l.Write(who)
	}
	whole, held, err := flock.TryLock(filepath.Join(dir, lockFile), false)
	if err != nil {
		return nil, fmt.Errorf("experiments: lock %s: %w", dir, err)
	}
	if held {
		return nil, lockedError(dir, []string{holder(filepath.Join(dir, lockFile))})
	}
	own := filepath.Join(dir, fmt.Sprintf(".lock-shard-%d-of-%d", shard, shards))
	l, held, err := flock.TryLock(own, true)
	if err == nil && held {
		err = lockedError(dir, []string{holder(own)})
	}
	if err == nil {
		if others := shardHolders(dir, shards); len(others) > 0 {
			l.Close()
			err = fmt.Errorf("experiments: %s is being written by shards of another count than %d, whose runs overlap this shard's: %s", dir, shards, strings.Join(others, "; "))
		}
	}
	if err == nil {
		err = l.Write(who)
	}
	if err != nil {
		whole.Close()
		return nil, err
	}
	return func() { l.Close(); whole.Close() }, nil
}

// lockedError refuses dir, naming its holders.
func lockedError(dir string, holders []string) error {
	return fmt.Errorf("experiments: %s is being written by another attnzoo run: %s\nwait for it to finish, or choose another --out", dir, strings.Join(holders, "; "))
}

// holder is what the lock file at path says of its holder.
func holder(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return "a process that has not said who it is"
	}
	return string(data)
}

// shardHolders names the holders of dir's shard locks that are held, but
// for those of shards shards (0: all). A lock is found held by asking for
// it shared, and released at once.
func shardHolders(dir string, shards int) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, ent := range ents {
		m := shardLockRe.FindStringSubmatch(ent.Name())
		if m == nil {
			continue
		}
		if n, _ := strconv.Atoi(m[2]); n == shards {
			continue
		}
		path := filepath.Join(dir, ent.Name())
		l, held, err := flock.TryLock(path, false)
		if err != nil {
			continue
		}
		if held {
			out = append(out, "shard "+m[1]+"/"+m[2]+": "+holder(path))
			continue
		}
		l.Close()
	}
	if len(out) == 0 && shards == 0 {
		out = append(out, holder(filepath.Join(dir, lockFile)))
	}
	return out
}
