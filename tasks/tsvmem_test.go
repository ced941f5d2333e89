package tasks

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeCorpus writes pairs lines of a generated corpus shaped like a real
// one (issue 22's: Zipfian vocabularies of 7500 source and 5800 target
// words, each side 3–44 tokens, ~12 on average) to path, and returns the
// tokens it holds.
func writeCorpus(t *testing.T, path string, pairs int) (tokens int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	words := func(n int, prefix string) []string {
		ws := make([]string, n)
		for i := range ws {
			b := []byte(prefix)
			for range 3 + r.IntN(6) {
				b = append(b, byte('a'+r.IntN(26)))
			}
			ws[i] = string(b) + strconv.Itoa(i)
		}
		return ws
	}
	src, tgt := words(7500, "s"), words(5800, "t")
	zs, zt := rand.NewZipf(r, 1.1, 1, uint64(len(src)-1)), rand.NewZipf(r, 1.1, 1, uint64(len(tgt)-1))
	length := func() int { return min(3+int(r.ExpFloat64()*9.5), 44) }
	for range pairs {
		for side, z := range []*rand.Zipf{zs, zt} {
			ws := [2][]string{src, tgt}[side]
			n := length()
			tokens += n
			for k := range n {
				if k > 0 {
					w.WriteByte(' ')
				}
				w.WriteString(ws[z.Uint64()])
			}
			w.WriteByte("\t\n"[side])
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return tokens
}

// TestTSVMemory measures the data phase's memory on a generated corpus of
// ATTNZOO_CORPUS_PAIRS pairs (2000000 for docs/tasks.md's figure; the test is
// skipped without it): the peak RSS of a fresh process that makes Size's
// pass and then Loads the file split at random, less its RSS before, per
// token held. The bound asserted is 8 bytes a token (4 are the ids).
//
// The peak is measured in a child test process (this test binary run
// again): the parent's heap after generating the file would count in a
// vforked child's maxrss.
func TestTSVMemory(t *testing.T) {
	if path := os.Getenv("ATTNZOO_CORPUS_FILE"); path != "" {
		memChild(t, path)
		return
	}
	n, _ := strconv.Atoi(os.Getenv("ATTNZOO_CORPUS_PAIRS"))
	if n == 0 {
		t.Skip("set ATTNZOO_CORPUS_PAIRS (2000000 for docs/tasks.md's figure)")
	}
	path := filepath.Join(t.TempDir(), "corpus.tsv")
	tokens := writeCorpus(t, path, n)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTSVMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "ATTNZOO_CORPUS_FILE="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var base, sized, loaded, held int
	var secs [2]float64
	for _, l := range strings.Split(string(out), "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "rss base %d KB, after Size %d KB, after Load %d KB; %d tokens held; Size %fs, Load %fs",
			&base, &sized, &loaded, &held, &secs[0], &secs[1]); err == nil {
			break
		}
	}
	if held != tokens {
		t.Fatalf("child held %d tokens, the file has %d\n%s", held, tokens, out)
	}
	fi, _ := os.Stat(path)
	per := float64(loaded-base) * 1024 / float64(tokens)
	t.Logf("%d pairs, %d tokens, %.0f MB file: peak RSS %d KB before, %d KB after Size's pass (%.1f s), %d KB after Load (%.1f s): %.2f bytes a token",
		n, tokens, float64(fi.Size())/1e6, base, sized, secs[0], loaded, secs[1], per)
	if per > 8 {
		t.Errorf("the data phase took %.2f bytes a token, want ≤ 8", per)
	}
}

func memChild(t *testing.T, path string) {
	maxrss := func() int {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return int(ru.Maxrss) // KB on Linux
	}
	base := maxrss()
	task, err := New("tsv", Options{"path": path, "min_count": 2})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	s := task.(Sizer).Size()
	t1 := time.Now()
	sized := maxrss()
	d, err := task.Load(1)
	if err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	loaded := maxrss()
	src, tgt := d.Text.Tokens()
	fmt.Printf("rss base %d KB, after Size %d KB, after Load %d KB; %d tokens held; Size %.1fs, Load %.1fs\n",
		base, sized, loaded, src+tgt, t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds())
	fmt.Printf("Size: %+v; vocabularies loaded %d, %d\n", s, d.SrcVocab.Len(), d.TgtVocab.Len())
}
