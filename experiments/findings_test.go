package experiments

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The counts docs/findings.md quotes ("28 of the 32 runs stopped on
// patience", step ranges, "in 7 of 8 seeds") are recomputed here from the
// summaries committed beside it (docs/findings/<experiment>/summary.md and
// summary.csv), and each must appear on the page as computed (white space
// aside: the page's lines wrap anywhere): a count that does not match its
// summary fails (TestFindingsCounts).

// findingsDir holds the committed summaries of docs/findings.md.
const findingsDir = "../docs/findings"

// selRow is a row of summary.md's "Model selection" table: a run, the step
// of its checkpoint best on dev, and the step early stopping ended it at
// (0: "—", it trained to the step cap).
type selRow struct {
	run        string
	best, stop int
}

// readSelectionMD reads the Model selection table of an experiment's
// committed summary.md.
func readSelectionMD(t *testing.T, exp string) []selRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(findingsDir, exp, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## Model selection\n")
	if !ok {
		t.Fatalf("%s/summary.md has no Model selection section", exp)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out []selRow
	for _, l := range strings.Split(sec, "\n") {
		c := strings.Split(l, "|")
		if len(c) != 7 || strings.TrimSpace(c[1]) == "run" || strings.HasPrefix(strings.TrimSpace(c[1]), "---") {
			continue
		}
		r := selRow{run: strings.TrimSpace(c[1])}
		if r.best, err = strconv.Atoi(strings.TrimSpace(c[3])); err != nil {
			t.Fatalf("%s/summary.md: %q: %v", exp, l, err)
		}
		if s := strings.TrimSpace(c[5]); s != "—" {
			if r.stop, err = strconv.Atoi(s); err != nil {
				t.Fatalf("%s/summary.md: %q: %v", exp, l, err)
			}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Fatalf("%s/summary.md: an empty Model selection table", exp)
	}
	return out
}

// stopCounts summarises the runs whose id matches re: how many, how many
// stopped on patience, the range of their stopping steps and of their best
// checkpoints, and the range of the best checkpoints of the runs that
// trained to the cap.
type stopCounts struct {
	n, patience, capped int
	stop, best, capBest [2]int // [lowest, highest]; 0, 0 when none
}

func widen(r *[2]int, v int) {
	if r[0] == 0 || v < r[0] {
		r[0] = v
	}
	r[1] = max(r[1], v)
}

func countStops(rows []selRow, re string) stopCounts {
	var c stopCounts
	m := regexp.MustCompile(re)
	for _, r := range rows {
		if !m.MatchString(r.run) {
			continue
		}
		c.n++
		if r.stop > 0 {
			c.patience++
			widen(&c.stop, r.stop)
			widen(&c.best, r.best)
		} else {
			c.capped++
			widen(&c.capBest, r.best)
		}
	}
	return c
}

// pairedDiffs is, from an experiment's committed summary.csv, metric at
// the run matching reA less metric at the run of the same seed matching
// reB, for each seed.
func pairedDiffs(t *testing.T, exp, metric, reA, reB string) []float64 {
	t.Helper()
	a, b := seedValues(t, exp, metric, reA), seedValues(t, exp, metric, reB)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%s: %d seeds of %s against %d of %s", exp, len(a), reA, len(b), reB)
	}
	var out []float64
	for seed, va := range a {
		vb, ok := b[seed]
		if !ok {
			t.Fatalf("%s: seed %s has a run of %s and none of %s", exp, seed, reA, reB)
		}
		out = append(out, va-vb)
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// seedValues is metric per seed at the runs of an experiment's committed
// summary.csv whose id matches re.
func seedValues(t *testing.T, exp, metric, re string) map[string]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(findingsDir, exp, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], metric)
	if col < 0 {
		t.Fatalf("%s/summary.csv has no %s column", exp, metric)
	}
	out := map[string]float64{}
	m := regexp.MustCompile(re)
	for _, r := range recs[1:] {
		if !m.MatchString(r[0]) {
			continue
		}
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatalf("%s/summary.csv: %s %s: %v", exp, r[0], metric, err)
		}
		out[r[1]] = v
	}
	return out
}

// seedsAbove counts, from an experiment's committed summary.csv, the seeds
// at which metric is higher at the run matching reA than at the run of the
// same seed matching reB (the two patterns name one run per seed each).
func seedsAbove(t *testing.T, exp, metric, reA, reB string) (above, seeds int) {
	t.Helper()
	for _, d := range pairedDiffs(t, exp, metric, reA, reB) {
		seeds++
		if d > 0 {
			above++
		}
	}
	return above, seeds
}

// TestFindingsCounts: every count docs/findings.md quotes about early
// stopping, the step cap and per-seed wins, recomputed from the committed
// summaries and looked for on the page as worded there.
func TestFindingsCounts(t *testing.T) {
	page, err := os.ReadFile("../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(page)), " ") // as read: lines wrap anywhere
	want := func(section, phrase string) {
		t.Helper()
		if !strings.Contains(text, phrase) {
			t.Errorf("docs/findings.md %s: the summaries give %q, not on the page", section, phrase)
		}
	}
	rng := func(r [2]int) string { return fmt.Sprintf("%d–%d", r[0], r[1]) }

	scaled := readSelectionMD(t, "findings-scaled")
	all, sd, others := countStops(scaled, ""), countStops(scaled, `^scorer=scaled-dot_`), countStops(scaled, `^scorer=(learned-scaled-dot|projected-dot|dot)_`)
	want("§1", fmt.Sprintf("%d of the %d runs stopped on patience (at %s steps; scaled-dot's at %s, its best checkpoints at %s; the others' at %s)",
		all.patience, all.n, rng(all.stop), rng(sd.stop), rng(sd.best), rng(others.stop)))

	britz := readSelectionMD(t, "findings-britz")
	b, bc, bm := countStops(britz, ""), countStops(britz, `^scorer=concat_`), countStops(britz, `^scorer=multiplicative_`)
	want("§2", fmt.Sprintf("%d of the %d runs stopped on patience (all %d concat runs, best checkpoints at steps %s; %d of %d multiplicative ones, at %s); the %d multiplicative runs that reached the cap took their best checkpoint at %s",
		b.patience, b.n, bc.patience, rng(bc.best), bm.patience, bm.n, rng(bm.best), bm.capped, rng(bm.capBest)))
	for _, a := range []string{"16", "128"} {
		up, n := seedsAbove(t, "findings-britz", "bleu", `^scorer=concat_attention=`+a+`_`, `^scorer=multiplicative_attention=`+a+`_`)
		want("§2", fmt.Sprintf("concat's BLEU is above multiplicative's in %d of %d seeds at A = %s", up, n, a))
	}

	gaps := pairedDiffs(t, "findings-britz", "bleu", `^scorer=concat_attention=128_`, `^scorer=multiplicative_attention=128_`)
	want("§2", fmt.Sprintf("the median paired gap is %.2f BLEU against the mean's %.2f", median(gaps), mean(gaps)))
	up, n := seedsAbove(t, "findings-britz", "bleu", `^scorer=concat_attention=16_`, `^scorer=concat_attention=128_`)
	want("§2", fmt.Sprintf("concat at A = 16 above A = 128 in %d of %d seeds", up, n))

	luong := readSelectionMD(t, "findings-luong")
	lc, ll := countStops(luong, `^scorer=(dot|general|concat)_`), countStops(luong, `^scorer=location_`)
	want("§3", fmt.Sprintf("%d of the %d dot, general and concat runs stopped on patience (their best checkpoint at steps %s), the other %d reached the 12000-step cap with their best at %s; %d of the %d location runs reached the cap",
		lc.patience, lc.n, rng(lc.best), lc.capped, rng(lc.capBest), ll.capped, ll.n))

	length := countStops(readSelectionMD(t, "findings-length"), "")
	want("§6", fmt.Sprintf("%d of the %d runs stopped on patience at %s steps, their best checkpoint at %s", length.patience, length.n, rng(length.stop), rng(length.best)))

	sp := countStops(readSelectionMD(t, "findings-sparsemax"), "")
	want("§7", fmt.Sprintf("%d of the %d runs stopped on patience at %s steps", sp.patience, sp.n, rng(sp.stop)))

	margin := readSelectionMD(t, "findings-sparsemax-margin")
	mg, ms := countStops(margin, ""), countStops(margin, `^normalizer=sparsemax_`)
	want("§7", fmt.Sprintf("%d of the %d runs stopped on patience (best checkpoints at %s); %d sparsemax run reached the cap with its best at %s",
		mg.patience, mg.n, rng(mg.best), ms.capped, rng(ms.capBest)[:strings.Index(rng(ms.capBest), "–")]))
}

// multi30kFixture writes, into a temporary folder, the Multi30k layout
// findings-multi30k.toml reads beside itself (train, val and
// test_2016_flickr .lc.norm.tok.{de,en}), made of testdata/tasks/tiny.tsv's
// pairs (the corpus is not in the repository), and a copy of the file; it
// returns the copy's path.
func multi30kFixture(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/tasks/tiny.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	dir := t.TempDir()
	for name, ls := range map[string][]string{"train": lines[:len(lines)-24], "val": lines[len(lines)-24 : len(lines)-12], "test_2016_flickr": lines[len(lines)-12:]} {
		var en, de []string
		for _, l := range ls {
			c := strings.Split(l, "\t")
			en, de = append(en, strings.ToLower(c[0])), append(de, strings.ToLower(c[1]))
		}
		for ext, side := range map[string][]string{"en": en, "de": de} {
			if err := os.WriteFile(filepath.Join(dir, name+".lc.norm.tok."+ext), []byte(strings.Join(side, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	toml, err := os.ReadFile("multi30k/findings-multi30k.toml")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "findings-multi30k.toml")
	if err := os.WriteFile(p, toml, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFindingsRunCounts: the runs each findings file makes (its sweep ×
// its seeds, counted by Load and Runs) are the counts docs/findings.md's
// "Reproducing" table gives ("… = 288 |"), and every file loads —
// multi30k's on a stand-in corpus in its layout, its paths as a user
// copies the dataset's files beside it.
func TestFindingsRunCounts(t *testing.T) {
	page, err := os.ReadFile("../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	_, repro, ok := strings.Cut(string(page), "\n## Reproducing\n")
	if !ok {
		t.Fatal("docs/findings.md has no Reproducing section")
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/-]+)`[^|]*\\|[^|]*\\| [^|]*= ([0-9]+) \\|")
	rows := row.FindAllStringSubmatch(repro, -1)
	if len(rows) != 9 {
		t.Fatalf("%d rows of runs in the Reproducing table, want the 9 findings files", len(rows))
	}
	for _, r := range rows {
		path := r[1] + ".toml"
		if r[1] == "multi30k/findings-multi30k" {
			path = multi30kFixture(t)
		}
		e, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", r[1], err)
			continue
		}
		runs, err := e.Runs()
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := strconv.Atoi(r[2]); len(runs) != want {
			t.Errorf("docs/findings.md: %s makes %d runs, the page says %d", r[1], len(runs), want)
		}
	}
}
