package seq2seq

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestBeamBytesBoundsBeam: every byte Beam allocates on the Go heap (its
// step graph compiled beforehand, so the count is Beam's own: live data and
// garbage alike) is within BeamBytes, and the weights history alone, which
// an untrained model that never stops fills for all maxLen + 1 steps,
// is most of it. Before, Beam made k·k candidates and k + 1 indices per
// hypothesis and step: at k = 64, 40 times this bound.
func TestBeamBytesBoundsBeam(t *testing.T) {
	cfg := smallConfig("concat", "bahdanau")
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := reversal(rand.New(rand.NewPCG(3, 3)), 8, 9, 9) // B = 8 sources of S = 9
	b, _ := NewBatch(src, nil)
	cache := NewGraphCache(0)
	defer cache.Close()
	const k, maxLen = 64, 12
	o := BeamOptions{Width: k, MaxLen: maxLen, Cache: cache}
	if _, err := m.Beam(b, o); err != nil { // compiles the graphs
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	hs, err := m.Beam(b, o)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 8 {
		t.Fatalf("%d hypotheses for 8 sources", len(hs))
	}
	got := float64(after.TotalAlloc - before.TotalAlloc)
	bound := BeamBytes(8, k, 9, float64(cfg.TgtVocab), maxLen, 4)
	// the history: 13 steps × 512 rows × (4·9 + 8) bytes = 292,864
	history := 13.0 * 8 * k * (4*9 + 8)
	t.Logf("Beam allocated %.0f bytes; BeamBytes %.0f; the history %.0f", got, bound, history)
	if got > bound {
		t.Errorf("Beam allocated %.0f bytes, past BeamBytes's %.0f", got, bound)
	}
	if got < history {
		t.Errorf("Beam allocated %.0f bytes, less than the history it must keep (%.0f)", got, history)
	}
}
