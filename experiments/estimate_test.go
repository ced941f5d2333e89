package experiments

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
)

// TestEstimateParams: the estimate's parameter count equals the count of
// the model seq2seq builds, for every cell, scorer, init, encoder and the β
// gate (the formula in estimate.go is written from the shapes in
// seq2seq/model.go, cells and scorers; this holds it to them).
func TestEstimateParams(t *testing.T) {
	type tc struct {
		cell, enc, dec, scorer, init string
		beta                         bool
		layers                       int
		tie                          bool
	}
	var cases []tc
	for _, cell := range []string{"rnn", "gru", "lstm"} {
		for _, sc := range []string{"dot", "general", "concat", "scaled-dot", "cosine", "location",
			"multiplicative", "projected-dot", "learned-scaled-dot"} {
			cases = append(cases, tc{cell, "birnn", "bahdanau", sc, "final", false, 0, false})
		}
		cases = append(cases, tc{cell, "rnn", "luong", "concat", "zero", true, 0, false}, tc{cell, "patches", "luong", "general", "mean", true, 0, false},
			tc{cell, "cnn", "bahdanau", "dot", "zero", false, 0, false}, tc{cell, "cnn", "bahdanau", "concat", "mean", true, 0, false},
			// [model] layers and tie_embeddings
			tc{cell, "birnn", "bahdanau", "concat", "final", false, 2, false}, tc{cell, "rnn", "luong", "general", "zero", false, 3, false},
			tc{cell, "birnn", "luong", "dot", "mean", false, 1, true}, tc{cell, "birnn", "bahdanau", "dot", "final", true, 2, true})
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s-%s-%s-%s-%s-%v-L%d-tie%v", c.cell, c.enc, c.dec, c.scorer, c.init, c.beta, c.layers, c.tie)
		cfg := seq2seq.Config{Cell: c.cell, Encoder: c.enc, Decoder: c.dec, Scorer: c.scorer, Init: c.init, Beta: c.beta,
			SrcVocab: 17 + 4, TgtVocab: 13 + 4, Embed: 6, Hidden: 10, Attention: 7, MaxSrcLen: 9, Seed: 1,
			Layers: c.layers, TieEmbeddings: c.tie}
		in := estimateInput{Bytes: 4, Cell: c.cell, Encoder: c.enc, Decoder: c.dec, Scorer: c.scorer, Init: c.init, Beta: c.beta,
			Embed: 6, Hidden: 10, Attention: 7, Batch: 2, Beam: 1, Optimizer: "adam", Layers: float64(c.layers), Tie: c.tie,
			Data: tasks.Size{MaxSrc: 9, MaxTgt: 5, SrcVocab: 17, TgtVocab: 13}}
		if c.tie { // the embedding feeds the output projection: embed = hidden
			cfg.Embed, in.Embed = 10, 10
		}
		switch c.enc {
		case "patches": // 16×16 RGB in 4×4 patches: 16 regions of 48 values
			cfg.Regions, cfg.RegionSize = 16, 48
			in.EncoderSettings, in.Data.C, in.Data.H, in.Data.W = map[string][]float64{"patch": {4}}, 3, 16, 16
		case "cnn": // 16×16 RGB, conv [5, 8] strides [2, 1]: an 8×8 grid of 8
			cfg.EncoderSettings = map[string][]float64{"conv": {5, 8}, "conv_stride": {2, 1}} // conv_kernel: the default
			cfg.ImageC, cfg.ImageH, cfg.ImageW = 3, 16, 16
			in.EncoderSettings = cfg.EncoderSettings
			in.Data.C, in.Data.H, in.Data.W = 3, 16, 16
		}
		if c.scorer == "location" && seq2seq.IsRegionEncoder(c.enc) {
			continue
		}
		m, err := seq2seq.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := estimate(in).Params, float64(m.NumParams()); got != want {
			t.Errorf("%s: estimate counts %.0f parameters, the model has %.0f", name, got, want)
		}
	}
}

// typoFile is the experiment file without its typo: an LSTM, Luong
// decoder, hidden 48, four scorers.
func typoFile(batch, attention, hidden, maxLen string) string {
	return `name = "typo"
[task]
name = "reverse"
max_len = ` + maxLen + `
[model]
cell = "lstm"
decoder = "luong"
hidden = ` + hidden + `
attention = ` + attention + `
[train]
batch = ` + batch + `
[sweep]
scorer = ["dot", "general", "concat", "scaled-dot"]
`
}

// correctTypoRuns loads typoFile with the sizes meant (batch 64, attention
// and hidden 48, max_len 10) and expands its runs.
func correctTypoRuns(t *testing.T) (*Experiment, []*Run) {
	e, err := Load(writeExp(t, typoFile("64", "48", "48", "10")))
	return e, runsOf(t, e, err)
}

// typoCases are the four mistyped files (testdata/typos), with
// the line and key each refusal must name.
var typoCases = []struct{ file, where string }{
	{"batch.toml", "batch.toml:14: [train] batch"},
	{"attention.toml", "attention.toml:12: [model] attention"},
	{"hidden.toml", "hidden.toml:11: [model] hidden"},
	{"max_len.toml", "max_len.toml:7: [task] max_len"},
}

// TestTyposRefused: each of the mistyped files loads (every value
// is legal) and is refused before anything trains on a machine with 64 GB
// — each needs over a terabyte (estimate.go's formulas: batch 10⁹ × 11
// target steps × ~14-word logits alone is ~10¹¹ values; hidden 200000
// gives the decoder's 4·H·(E+2H) ≈ 3·10¹¹ weights) — naming its key and
// line, the estimate and the limit; the correct file is not refused.
func TestTyposRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range typoCases {
		t.Run(tc.file, func(t *testing.T) {
			e, err := Load(filepath.Join("..", "testdata", "typos", tc.file))
			if err != nil {
				t.Fatalf("Load refused a legal file: %v", err)
			}
			_, err = e.Run(t.Context(), Options{Out: dir, Workers: 2, MaxMemory: 64e9})
			if err == nil {
				t.Fatal("not refused")
			}
			for _, want := range []string{tc.where, "needs ~", " TB", "64.0 GB is available (--max-memory)", "drives it", "the run would be ~"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "typo")); err == nil {
				t.Errorf("a refused sweep made its results folder")
			}
		})
	}
	e, runs := correctTypoRuns(t)
	p, err := e.plan(context.Background(), runs, 2, 64e9)
	if err != nil {
		t.Fatalf("the correct file is refused: %v", err)
	}
	if !strings.HasPrefix(p.String(), "4 runs, 2 workers, ~") || !strings.HasSuffix(p.String(), " MB each") {
		t.Errorf("plan line %q", p)
	}
}

// TestFewerWorkers: a sweep that fits one run at a time but not two is
// refused with the advice to use one worker.
func TestFewerWorkers(t *testing.T) {
	e, runs := correctTypoRuns(t)
	p, _ := e.plan(context.Background(), runs, 2, 1e15)
	one, two := peakWith(p.Each, 1), peakWith(p.Each, 2)
	if !(one < two) {
		t.Fatalf("peak with one worker %g, two %g", one, two)
	}
	_, err := e.plan(context.Background(), runs, 2, (one+two)/2)
	if err == nil || !strings.Contains(err.Error(), "--workers 1 would fit") {
		t.Errorf("want the advice --workers 1, got %v", err)
	}
}

// TestHardBounds: sizes no machine could hold are schema errors at Load,
// whatever the memory: hidden 10¹⁰ makes the decoder's weights 4·H·2H =
// 8·10²⁰ values, past 2^47 bytes; batch 2^62 × the logits overflows.
func TestHardBounds(t *testing.T) {
	checkBadFiles(t, []badFile{
		{"hidden", typoFile("64", "48", "10000000000", "10"), []string{"bad.toml:8", "[model] hidden", "no machine could run this", "2^47"}},
		{"batch", typoFile("4611686018427387904", "48", "48", "10"), []string{"bad.toml:11", "[train] batch", "no machine could run this"}},
		{"swept hidden", strings.Replace(typoFile("64", "48", "48", "10"), `scorer = [`, `hidden = [64, 20000000000]
scorer = [`, 1), []string{"[sweep] hidden", "no machine could run this"}},
	})
}

// TestMemoryLimit reads cgroup v2, cgroup v1 and /proc/meminfo from fake
// file systems.
func TestMemoryLimit(t *testing.T) {
	write := func(root, path, text string) {
		p := filepath.Join(root, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	meminfo := "MemTotal:       24683620 kB\nMemFree:        22046124 kB\nMemAvailable:   23799484 kB\n"
	cases := []struct {
		name  string
		files map[string]string
		want  float64
		from  string
	}{
		{"v2 leaf", map[string]string{"proc/self/cgroup": "0::/job/step\n", "sys/fs/cgroup/job/step/memory.max": "1073741824\n",
			"sys/fs/cgroup/job/memory.max": "max\n", "proc/meminfo": meminfo}, 1 << 30, "memory.max"},
		{"v2 parent smaller", map[string]string{"proc/self/cgroup": "0::/job/step\n", "sys/fs/cgroup/job/step/memory.max": "max\n",
			"sys/fs/cgroup/job/memory.max": "536870912\n", "proc/meminfo": meminfo}, 1 << 29, "memory.max"},
		{"v2 no limit", map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "max\n", "proc/meminfo": meminfo},
			23799484 * 1024, "MemAvailable"},
		{"v1", map[string]string{"proc/self/cgroup": "4:memory:/process_api/x\n1:cpu:/\n0::/\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "2147483648\n", "proc/meminfo": meminfo}, 1 << 31, "memory.limit_in_bytes"},
		{"v1 unlimited, namespaced", map[string]string{"proc/self/cgroup": "4:cpuacct,memory:/process_api/x\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "proc/meminfo": meminfo}, 23799484 * 1024, "MemAvailable"},
	}
	for _, tc := range cases {
		root := t.TempDir()
		for p, text := range tc.files {
			write(root, p, text)
		}
		got, from, err := memoryLimit(root)
		if err != nil || got != tc.want || !strings.Contains(from, tc.from) {
			t.Errorf("%s: got %g from %q (%v), want %g from %s", tc.name, got, from, err, tc.want, tc.from)
		}
	}
	if _, _, err := memoryLimit(t.TempDir()); err == nil || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("no cgroup and no meminfo: want an error naming --max-memory, got %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]float64{"16GB": 16e9, "512MiB": 512 << 20, "2.5e9": 2.5e9, "1 TB": 1e12, "64g": 64e9, "100": 100, "3KiB": 3072} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %g, %v; want %g", s, got, err, want)
		}
	}
	for _, s := range []string{"", "GB", "-1GB", "lots", "NaN", "0"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

// TestBritzSweep: docs/scorers.md's sweep of concat against multiplicative over the
// attention size A reaches the models: each run's planned estimate counts
// the parameters of the model seq2seq builds, the formula counts the same,
// and raising A from 32 to 128 at hidden 48 adds W_q's and W_k's 2 · 96 ·
// 48 = 9216 weights to multiplicative, and those plus v's and b's 2 · 96 =
// 192 (9408) to concat.
func TestBritzSweep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "britz.toml")
	os.WriteFile(path, []byte(strings.Replace(typoFile("64", "48", "48", "10"), `scorer = ["dot", "general", "concat", "scaled-dot"]`,
		`scorer = ["concat", "multiplicative"]
"model.attention" = [32, 128]`, 1)), 0o644)
	e, err := Load(path)
	runs := runsOf(t, e, err)
	params := map[string]float64{}
	for _, r := range runs {
		in := e.runInput(r)
		est := estimate(in)
		if !est.Planned {
			t.Fatalf("%s: not planned from the model", r.ID)
		}
		if f := formulaEstimate(in).Params; f != est.Params {
			t.Errorf("%s: the formula counts %.0f parameters, the model has %.0f", r.ID, f, est.Params)
		}
		params[fmt.Sprintf("%s/%d", r.Model.Scorer, r.Model.Attention)] = est.Params
	}
	if len(params) != 4 {
		t.Fatalf("runs %v, want concat and multiplicative at A = 32 and 128", params)
	}
	for sc, want := range map[string]float64{"multiplicative": 9216, "concat": 9408} {
		if d := params[sc+"/128"] - params[sc+"/32"]; d != want {
			t.Errorf("%s: A 32 → 128 adds %.0f parameters, want %.0f", sc, d, want)
		}
	}
}

// beamFile is a reverse task (sources of up to 8 tokens, 10 symbols) at
// [train] batch 32 and [decode] beam and max_len as given.
func beamFile(beam, maxLen string) string {
	return `name = "beamy"
[task]
name = "reverse"
min_len = 3
max_len = 8
vocab = 10
train = 100
dev = 10
test = 10
[model]
hidden = 32
attention = 32
embed = 16
[train]
steps = 5
batch = 32
[decode]
beam = ` + beam + `
max_len = ` + maxLen + `
`
}

// TestBeamEstimate: a run's estimate counts beam search's heap as
// seq2seq.BeamBytes derives it. Here B = 32, k = 50, S = 8, V = 10 + 4,
// max_len 20 (21 steps), float32: R = 1600 rows;
// history 21·1600·(4·8 + 8) = 1,344,000; rows 42·1600 = 67,200;
// step 64·50 + 8·(14 + 1) + 8·14 = 3,432; sources 32·32 + 32·21·(64 + 32)
// = 65,536; small 256·21 + 65,536 = 70,912: 1,551,080 bytes, counted twice
// (the collector's headroom) in the total. Before, the estimate had no
// such part and beam 20000 on quickstart's task was estimated at 0.4 GB.
func TestBeamEstimate(t *testing.T) {
	e, err := Load(writeExp(t, beamFile("50", "20")))
	runs := runsOf(t, e, err)
	est := e.runEstimate(runs[0])
	if est.Beam != 1551080 {
		t.Errorf("beam search's heap estimated at %.0f bytes, derived 1,551,080", est.Beam)
	}
	e1, err := Load(writeExp(t, beamFile("1", "20")))
	runs1 := runsOf(t, e1, err)
	if one := e1.runEstimate(runs1[0]); one.Beam != 0 || est.Total-one.Total < 2*1551080 {
		t.Errorf("beam 1: %.0f bytes of beam; totals %.0f (beam 50) and %.0f (beam 1)", one.Beam, est.Total, one.Total)
	}
}

// TestBeamRefused: a beam that cannot fit is refused before anything is
// written, naming [decode] beam and its size (beam 20000 on this task:
// R = 640,000 rows; its history alone is 21·640,000·40 bytes ≈ 0.54 GB).
func TestBeamRefused(t *testing.T) {
	dir := t.TempDir()
	e, err := Load(writeExp(t, beamFile("20000", "20")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(t.Context(), Options{Out: dir, Workers: 1, MaxMemory: 1e9})
	for _, want := range []string{"[decode] beam", "beam = 20000 drives it", "1.0 GB is available (--max-memory)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "beamy")); err == nil {
		t.Errorf("a refused sweep made its results folder")
	}
}

// TestAddressSpaceLimit: an RLIMIT_AS (ulimit -v) lower than --max-memory
// is the limit, less the address space the runtime reserves, and the
// refusal says so: the address space is the cause, --max-memory cannot
// raise it, a larger ulimit -v can; it does not offer --max-memory.
func TestAddressSpaceLimit(t *testing.T) {
	old := addressSpace
	defer func() { addressSpace = old }()
	addressSpace = func() (float64, bool) { return addressOverhead() + 1e6, true } // 1 MB to spare
	e, err := Load(writeExp(t, beamFile("1", "20")))
	runs := runsOf(t, e, err)
	_, err = e.plan(context.Background(), runs, 1, 64e9)
	for _, want := range []string{"ulimit -v (RLIMIT_AS)", "1 MB is available",
		"the limit is the process's address space (ulimit -v, RLIMIT_AS), not the machine's memory",
		"--max-memory cannot raise it", "ulimit -v unlimited"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "--max-memory SIZE overrides") {
		t.Errorf("under RLIMIT_AS the refusal offers --max-memory, which cannot raise it: %v", err)
	}
	addressSpace = func() (float64, bool) { return 0, false }
	if _, err := e.plan(context.Background(), runs, 1, 64e9); err != nil {
		t.Errorf("no RLIMIT_AS: %v", err)
	}
	// Without RLIMIT_AS a refusal under --max-memory offers --max-memory.
	if _, err := e.plan(context.Background(), runs, 1, 1e6); err == nil || !strings.Contains(err.Error(), "--max-memory SIZE overrides the limit") {
		t.Errorf("want a refusal offering --max-memory, got %v", err)
	}
}
