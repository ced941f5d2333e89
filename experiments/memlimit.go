package experiments

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// MemoryLimit is the memory this process may use: its cgroup's limit where
// one is set (cgroup v2 memory.max, the smallest along the path to the
// root; cgroup v1 memory.limit_in_bytes), else MemAvailable from
// /proc/meminfo. from says where the number came from.
func MemoryLimit() (bytes float64, from string, err error) { return memoryLimit("/") }

// memoryLimit is MemoryLimit with the file system rooted at root (tests).
func memoryLimit(root string) (float64, string, error) {
	if n, from, ok := cgroupLimit(root); ok {
		return n, from, nil
	}
	f, err := os.Open(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return 0, "", fmt.Errorf("experiments: no cgroup memory limit and no /proc/meminfo (%v): pass --max-memory", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err != nil {
				break
			}
			return kb * 1024, "MemAvailable in /proc/meminfo", nil
		}
	}
	return 0, "", fmt.Errorf("experiments: no cgroup memory limit and no MemAvailable in /proc/meminfo: pass --max-memory")
}

// addressSpace is the process's address-space limit (RLIMIT_AS, ulimit -v)
// when one is set; tests replace it.
var addressSpace = rlimitAS

// addressOverhead is the address space a run reserves beyond the memory it
// holds: the Go runtime's reservations, and per thread its stack and the C
// library's malloc arena (measured: `attnzoo run experiments/tiny.toml`,
// 8 threads at GOMAXPROCS 2, peaks at 43 MB resident and 1.80 GB of
// address space, and fails under `ulimit -v` 1.5 GB).
func addressOverhead() float64 {
	return 1.25*(1<<30) + float64(runtime.GOMAXPROCS(0)+6)*72*(1<<20)
}

// addressLimit lowers limit to what RLIMIT_AS leaves, when one is set and
// leaves less, says so in from, and reports whether it did (bound).
func addressLimit(limit float64, from string) (_ float64, _ string, bound bool) {
	as, ok := addressSpace()
	if !ok {
		return limit, from, false
	}
	over := addressOverhead()
	if usable := max(as-over, 0); usable < limit {
		return usable, fmt.Sprintf("ulimit -v (RLIMIT_AS) %s, less ~%s of address space that the Go runtime and its threads reserve", humanBytes(as), humanBytes(over)), true
	}
	return limit, from, false
}

// addressHint is the refusal's advice when RLIMIT_AS is the limit:
// --max-memory cannot raise it, only whoever set it.
const addressHint = "the limit is the process's address space (ulimit -v, RLIMIT_AS), not the machine's memory, " +
	"and --max-memory cannot raise it: run attnzoo under a larger one (ulimit -v unlimited in the shell or job script " +
	"that starts it, or ask the batch system for more virtual memory), or make the sweep smaller"

// unlimited is what cgroup v1 writes for "no limit" (a page-rounded
// 2^63−1); anything from 2^60 up is read as none.
const unlimited = 1 << 60

// cgroupLimit reads the limit of this process's cgroup, v2 then v1.
func cgroupLimit(root string) (float64, string, bool) {
	data, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0, "", false
	}
	best, from := math.Inf(1), ""
	consider := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			return
		}
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n <= 0 || n >= unlimited {
			return
		}
		if n < best {
			best, from = n, "the cgroup limit "+strings.TrimPrefix(path, filepath.Clean(root))
		}
	}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		path := filepath.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "": // v2: the limit is the smallest up the tree
			base := filepath.Join(root, "sys/fs/cgroup")
			for p := path; ; p = filepath.Dir(p) {
				consider(filepath.Join(base, p, "memory.max"))
				if p == "/" {
					break
				}
			}
		case hasController(parts[1], "memory"): // v1
			base := filepath.Join(root, "sys/fs/cgroup/memory")
			consider(filepath.Join(base, path, "memory.limit_in_bytes"))
			consider(filepath.Join(base, "memory.limit_in_bytes")) // a namespaced mount shows its own cgroup at the root
		}
	}
	return best, from, !math.IsInf(best, 1)
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// ParseBytes reads a memory size: a number of bytes, or one with a unit
// KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (of 1024), e.g.
// "16GB", "512MiB", "2.5e9".
func ParseBytes(s string) (float64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("%q: want a size such as 16GB, 512MiB or 2000000000 (bytes)", s)
	}
	return n * mult, nil
}
