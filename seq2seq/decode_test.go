package seq2seq

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// trained returns a model trained briefly on reversal: good enough that
// greedy and beam search disagree on some inputs.
func trained(t *testing.T, cfg Config, steps int) (*Model, *Trainer) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 3e-3, Clip: 5})
	tr := NewTrainer(m, opt, 1)
	trainSteps(t, tr, rand.New(rand.NewPCG(2, 2)), steps, 32, 3, 6)
	return m, tr
}

// TestBeamOneIsGreedy: beam search of width 1 gives greedy's tokens, scores
// and alignments exactly.
func TestBeamOneIsGreedy(t *testing.T) {
	for _, dec := range DecoderNames() {
		m, tr := trained(t, smallConfig("general", dec), 60)
		src, _ := reversal(rand.New(rand.NewPCG(5, 5)), 40, 3, 8)
		b, _ := NewBatch(src, nil)
		g, err := m.Greedy(b, 10, tr.Cache)
		if err != nil {
			t.Fatal(err)
		}
		bm, err := m.Beam(b, BeamOptions{Width: 1, MaxLen: 10, Cache: tr.Cache})
		if err != nil {
			t.Fatal(err)
		}
		for i := range g {
			if !slices.Equal(g[i].Tokens, bm[i].Tokens) || g[i].Score != bm[i].Score || len(g[i].Align) != len(bm[i].Align) {
				t.Fatalf("%s input %d: greedy %v (%g), beam 1 %v (%g)", dec, i, g[i].Tokens, g[i].Score, bm[i].Tokens, bm[i].Score)
			}
			for r := range g[i].Align {
				if !slices.Equal(g[i].Align[r], bm[i].Align[r]) {
					t.Fatalf("%s input %d: alignment row %d differs", dec, i, r)
				}
			}
		}
	}
}

// TestBeamBeatsGreedy: with the same normalisation (raw log-probability,
// alpha 0), beam 5's score is at least greedy's on ≥ 99% of inputs and
// higher on average, on a half-trained model where they differ.
func TestBeamBeatsGreedy(t *testing.T) {
	m, tr := trained(t, smallConfig("concat", "bahdanau"), 60)
	src, _ := reversal(rand.New(rand.NewPCG(6, 6)), 200, 3, 8)
	b, _ := NewBatch(src, nil)
	g, err := m.Greedy(b, 10, tr.Cache)
	if err != nil {
		t.Fatal(err)
	}
	bm, err := m.Beam(b, BeamOptions{Width: 5, MaxLen: 10, Cache: tr.Cache})
	if err != nil {
		t.Fatal(err)
	}
	atLeast, sumG, sumB, differ := 0, 0.0, 0.0, 0
	for i := range g {
		// The model is float32: the same tokens scored through the beam's
		// batched rows and through greedy's differ by rounding, measured up
		// to 8.3e-7 on scores near −10 with OpenBLAS (about 7 ulps of
		// 2^−23 ≈ 1.19e-7 relative). So "at least as good" allows 1e-6
		// relative, about 8 ulps; a different, worse sequence loses by ~1e-2.
		if bm[i].Score >= g[i].Score-1e-6*math.Abs(g[i].Score) {
			atLeast++
		}
		if !slices.Equal(g[i].Tokens, bm[i].Tokens) {
			differ++
		}
		sumG += g[i].Score
		sumB += bm[i].Score
		if len(bm[i].Align) != len(bm[i].Tokens)+1 {
			t.Errorf("input %d: %d alignment rows for %d tokens + </s>", i, len(bm[i].Align), len(bm[i].Tokens))
		}
		for _, row := range bm[i].Align {
			if len(row) != len(src[i]) {
				t.Fatalf("input %d: alignment row of %d, source has %d", i, len(row), len(src[i]))
			}
		}
	}
	t.Logf("beam ≥ greedy on %d/%d; %d outputs differ; mean score greedy %.4f, beam %.4f", atLeast, len(g), differ, sumG/200, sumB/200)
	if float64(atLeast) < 0.99*float64(len(g)) || sumB <= sumG {
		t.Errorf("beam ≥ greedy on %d/%d, mean beam %.4f vs greedy %.4f", atLeast, len(g), sumB/200, sumG/200)
	}
}

// TestCheckpointRoundTrip: a loaded model decodes exactly as the saved one.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, cfg := range []Config{smallConfig("concat", "luong"), func() Config { c := smallConfig("location", "bahdanau"); c.Cell = "lstm"; return c }()} {
		m, tr := trained(t, cfg, 20)
		path := filepath.Join(t.TempDir(), "checkpoint")
		if err := m.Save(path, Checkpoint{SrcVocab: []string{"a"}, TgtVocab: []string{"b"}, Step: 20}); err != nil {
			t.Fatal(err)
		}
		m2, ck, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Step != 20 || ck.SrcVocab[0] != "a" {
			t.Errorf("checkpoint metadata %+v", ck.Step)
		}
		src, _ := reversal(rand.New(rand.NewPCG(7, 7)), 20, 3, 8)
		b, _ := NewBatch(src, nil)
		h1, err := m.Beam(b, BeamOptions{Width: 3, MaxLen: 10, Alpha: 1, Cache: tr.Cache})
		if err != nil {
			t.Fatal(err)
		}
		h2, err := m2.Beam(b, BeamOptions{Width: 3, MaxLen: 10, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range h1 {
			if !slices.Equal(h1[i].Tokens, h2[i].Tokens) || h1[i].Score != h2[i].Score {
				t.Errorf("input %d: before %v %v, after %v %v", i, h1[i].Tokens, h1[i].Score, h2[i].Tokens, h2[i].Score)
			}
		}
	}
}

func TestTopK(t *testing.T) {
	got := topK([]float64{0.1, 0.5, 0.5, -1, 0.9}, 3)
	if !slices.Equal(got, []int{4, 1, 2}) {
		t.Errorf("topK = %v, want [4 1 2]", got)
	}
}

// TestGreedyChunksMatchSteps: Greedy runs its steps in equal chunks of up to
// greedyChunk per run of an unrolled graph, each step fed the argmax of the
// last; with room for 40 tokens (three chunks of 14) an untrained model, which
// rarely stops, decodes exactly as beam search of width 1, which runs one
// step per run and feeds the tokens from Go: tokens, scores, alignments.
func TestGreedyChunksMatchSteps(t *testing.T) {
	for _, dec := range DecoderNames() {
		m, err := New(smallConfig("concat", dec))
		if err != nil {
			t.Fatal(err)
		}
		cache := NewGraphCache(0)
		src, _ := reversal(rand.New(rand.NewPCG(6, 6)), 24, 2, 9)
		b, _ := NewBatch(src, nil)
		const maxLen = 2*greedyChunk + 8
		g, err := m.Greedy(b, maxLen, cache)
		if err != nil {
			t.Fatal(err)
		}
		bm, err := m.Beam(b, BeamOptions{Width: 1, MaxLen: maxLen, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		long := 0
		for i := range g {
			if len(g[i].Tokens) > greedyChunk {
				long++
			}
			if !slices.Equal(g[i].Tokens, bm[i].Tokens) || g[i].Score != bm[i].Score || len(g[i].Align) != len(bm[i].Align) {
				t.Fatalf("%s input %d: greedy %v (%g), beam 1 %v (%g)", dec, i, g[i].Tokens, g[i].Score, bm[i].Tokens, bm[i].Score)
			}
			for r := range g[i].Align {
				if !slices.Equal(g[i].Align[r], bm[i].Align[r]) {
					t.Fatalf("%s input %d: alignment row %d differs", dec, i, r)
				}
			}
		}
		if long == 0 {
			t.Errorf("%s: no output longer than one chunk (%d tokens): the test does not cross chunks", dec, greedyChunk)
		}
		t.Logf("%s: %d of %d outputs longer than one chunk", dec, long, len(g))
	}
}

// beamReference is beam search written the straightforward way, every
// hypothesis carrying copies of its tokens and alignment rows (as Beam did
// before it kept parent pointers instead).
func beamReference(m *Model, b *Batch, k, maxLen int, alpha float64, cache *GraphCache) ([]Hypothesis, error) {
	mem, err := m.runEncoder(b, cache)
	if err != nil {
		return nil, err
	}
	st, err := m.newStepper(mem, k, 1, cache)
	if err != nil {
		return nil, err
	}
	B, S, V := mem.B, mem.S, st.V
	idx := make([]int, B*k)
	type beam struct {
		h     Hypothesis
		alive bool
	}
	beams := make([][]beam, B)
	finished := make([][]Hypothesis, B)
	for i := range beams {
		beams[i] = make([]beam, k)
		beams[i][0].alive = true
	}
	type cand struct {
		from, tok int
		score     float64
	}
	for t := 0; t <= maxLen; t++ {
		out, err := st.run()
		if err != nil {
			return nil, err
		}
		anyAlive := false
		for i := 0; i < B; i++ {
			var cs []cand
			for j := 0; j < k; j++ {
				bm := beams[i][j]
				if !bm.alive {
					continue
				}
				lp := row(out.logp[0], (i*k+j)*V, V, nil)
				if t == maxLen {
					cs = append(cs, cand{j, EosID, bm.h.Score + lp[EosID]})
					continue
				}
				for _, tok := range topK(lp, k) {
					cs = append(cs, cand{j, tok, bm.h.Score + lp[tok]})
				}
			}
			sort.SliceStable(cs, func(a, b int) bool { return cs[a].score > cs[b].score })
			nb := make([]beam, k)
			n := 0
			for _, c := range cs {
				if n == k || len(finished[i]) >= k {
					break
				}
				old := beams[i][c.from].h
				h := Hypothesis{Score: c.score, Tokens: old.Tokens}
				h.Align = append(append([][]float64(nil), old.Align...), row(out.weights[0], (i*k+c.from)*S, mem.srcLen[i], nil))
				if c.tok == EosID {
					finished[i] = append(finished[i], h)
					continue
				}
				h.Tokens = append(append([]int(nil), old.Tokens...), c.tok)
				nb[n] = beam{h: h, alive: true}
				idx[i*k+n] = i*k + c.from
				st.y[i*k+n] = c.tok
				n++
			}
			for j := n; j < k; j++ {
				idx[i*k+j] = i * k
			}
			if len(finished[i]) >= k {
				n = 0
				for j := range nb {
					nb[j].alive = false
				}
			}
			beams[i] = nb
			anyAlive = anyAlive || n > 0
		}
		if !anyAlive {
			break
		}
		if err := st.advance(out, idx); err != nil {
			return nil, err
		}
	}
	res := make([]Hypothesis, B)
	for i := range res {
		best := -1
		for j, h := range finished[i] {
			if best < 0 || h.NormScore(alpha) > finished[i][best].NormScore(alpha) {
				best = j
			}
		}
		res[i] = finished[i][best]
	}
	return res, nil
}

// TestBeamMatchesReference: Beam, which keeps parent pointers and builds
// only the returned hypotheses, returns exactly what the straightforward
// search returns: tokens, scores and alignment rows, for widths 2, 3 and 5,
// alpha 0 and 1, both decoders, on a half-trained model.
func TestBeamMatchesReference(t *testing.T) {
	for _, dec := range DecoderNames() {
		m, tr := trained(t, smallConfig("concat", dec), 40)
		src, _ := reversal(rand.New(rand.NewPCG(8, 8)), 30, 3, 9)
		b, _ := NewBatch(src, nil)
		for _, k := range []int{2, 3, 5} {
			for _, alpha := range []float64{0, 1} {
				got, err := m.Beam(b, BeamOptions{Width: k, MaxLen: 12, Alpha: alpha, Cache: tr.Cache})
				if err != nil {
					t.Fatal(err)
				}
				want, err := beamReference(m, b, k, 12, alpha, tr.Cache)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if !slices.Equal(got[i].Tokens, want[i].Tokens) || got[i].Score != want[i].Score || len(got[i].Align) != len(want[i].Align) {
						t.Fatalf("%s k=%d alpha=%g input %d: %v (%g), reference %v (%g)", dec, k, alpha, i, got[i].Tokens, got[i].Score, want[i].Tokens, want[i].Score)
					}
					for r := range got[i].Align {
						if !slices.Equal(got[i].Align[r], want[i].Align[r]) {
							t.Fatalf("%s k=%d input %d: alignment row %d differs", dec, k, i, r)
						}
					}
				}
			}
		}
	}
}

// TestWideBeamMatchesReference: with widths at and past the vocabulary (14
// tokens: k = 14 and 40), where Beam keeps only the 2k best candidates of a
// source while the reference sorts all k·min(k, V), and with float64
// weights kept in their own precision, Beam still returns exactly what the
// straightforward search returns.
func TestWideBeamMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		dtype string
		ks    []int
	}{{"float32", []int{14, 40}}, {"float64", []int{5}}} {
		cfg := smallConfig("concat", "bahdanau")
		cfg.Dtype = tc.dtype
		m, tr := trained(t, cfg, 40)
		src, _ := reversal(rand.New(rand.NewPCG(9, 9)), 8, 3, 9)
		b, _ := NewBatch(src, nil)
		for _, k := range tc.ks {
			for _, alpha := range []float64{0, 1} {
				got, err := m.Beam(b, BeamOptions{Width: k, MaxLen: 12, Alpha: alpha, Cache: tr.Cache})
				if err != nil {
					t.Fatal(err)
				}
				want, err := beamReference(m, b, k, 12, alpha, tr.Cache)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if !slices.Equal(got[i].Tokens, want[i].Tokens) || got[i].Score != want[i].Score || len(got[i].Align) != len(want[i].Align) {
						t.Fatalf("%s k=%d alpha=%g input %d: %v (%g), reference %v (%g)", tc.dtype, k, alpha, i, got[i].Tokens, got[i].Score, want[i].Tokens, want[i].Score)
					}
					for r := range got[i].Align {
						if !slices.Equal(got[i].Align[r], want[i].Align[r]) {
							t.Fatalf("%s k=%d input %d: alignment row %d differs", tc.dtype, k, i, r)
						}
					}
				}
			}
		}
	}
}

// TestGreedyTop: GreedyTop gives Greedy's output, and at each step the k
// most probable tokens: the first is the token greedy took (</s> at the
// last step), the probabilities fall and sum to at most 1, and the logs of
// the first ones sum to the hypothesis's score (which nll_test.go checks
// against the training graph's NLL of the output).
func TestGreedyTop(t *testing.T) {
	m, tr := trained(t, smallConfig("general", "bahdanau"), 60)
	src, _ := reversal(rand.New(rand.NewPCG(5, 5)), 20, 3, 8)
	b, _ := NewBatch(src, nil)
	g, err := m.Greedy(b, 10, tr.Cache)
	if err != nil {
		t.Fatal(err)
	}
	const k = 3
	top, err := m.GreedyTop(b, 10, tr.Cache, nil, k)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g {
		h := top[i]
		if !slices.Equal(h.Tokens, g[i].Tokens) || h.Score != g[i].Score || g[i].Top != nil {
			t.Fatalf("input %d: GreedyTop %v (%g), Greedy %v (%g, top %v)", i, h.Tokens, h.Score, g[i].Tokens, g[i].Score, g[i].Top)
		}
		if len(h.Top) != len(h.Tokens)+1 {
			t.Fatalf("input %d: %d steps of top tokens for %d tokens and </s>", i, len(h.Top), len(h.Tokens))
		}
		logp := 0.0
		for s, sc := range h.Top {
			want := EosID
			if s < len(h.Tokens) {
				want = h.Tokens[s]
			}
			if len(sc) != k || sc[0].Token != want {
				t.Fatalf("input %d step %d: top %v, want %d first of %d", i, s, sc, want, k)
			}
			sum := 0.0
			for n, x := range sc {
				sum += x.P
				if n > 0 && (x.P > sc[n-1].P || x.Token == sc[n-1].Token) {
					t.Errorf("input %d step %d: top %v not in falling order", i, s, sc)
				}
			}
			if sum > 1+1e-9 {
				t.Errorf("input %d step %d: top probabilities sum to %v", i, s, sum)
			}
			logp += math.Log(sc[0].P)
		}
		if math.Abs(logp-h.Score) > 1e-9*math.Max(1, math.Abs(h.Score)) {
			t.Errorf("input %d: the top tokens' log-probabilities sum to %v, the score is %v", i, logp, h.Score)
		}
	}
}
