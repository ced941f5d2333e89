package seq2seq

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
)

// TestPluginEncoderSetting: the setting of an encoder registered from a
// test file (test-gain-bag, plugin_test.go) is declared, recorded with its
// default, checked, read by the encoder and saved in checkpoints, with no
// other file touched.
func TestPluginEncoderSetting(t *testing.T) {
	if got := EncoderSettingsOf("test-gain-bag"); len(got) != 1 || got[0].Name != "bag_gain" {
		t.Fatalf("EncoderSettingsOf(test-gain-bag) = %+v", got)
	}
	cfg := tiny("gru", "test-gain-bag", "bahdanau", "dot")
	r, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if g := r.EncoderSettings["bag_gain"]; len(g) != 1 || g[0] != 1 {
		t.Errorf("resolved bag_gain %v, want the default [1] recorded", g)
	}
	if cfg.EncoderSettings != nil {
		t.Errorf("Resolve changed its receiver's settings: %v", cfg.EncoderSettings)
	}
	// a value below its Min is an error naming the key
	bad := cfg
	bad.EncoderSettings = map[string][]float64{"bag_gain": {-1}}
	var fe *FieldError
	if err := bad.Validate(); !errors.As(err, &fe) || fe.Key != "bag_gain" || !strings.Contains(err.Error(), "≥ 0") {
		t.Errorf("bag_gain -1: %v", err)
	}
	// another encoder's setting is an error naming the encoder that has it
	other := tiny("gru", "birnn", "bahdanau", "dot")
	other.EncoderSettings = map[string][]float64{"bag_gain": {2}}
	if err := other.Validate(); err == nil || !strings.Contains(err.Error(), "bag_gain") || !strings.Contains(err.Error(), "test-gain-bag") {
		t.Errorf("bag_gain on birnn: %v", err)
	}
	// bag_gain = 0: every annotation is tanh(0·E x_t) = 0, so the dot
	// scorer's scores qᵀa_t are all 0 and the attention is uniform, 1/n
	// over each source's n tokens, at every step (with gain 1 it is not)
	zero := cfg
	zero.EncoderSettings = map[string][]float64{"bag_gain": {0}}
	for _, c := range []struct {
		cfg     Config
		uniform bool
	}{{zero, true}, {cfg, false}} {
		m, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBatch([][]int{{4, 5, 6}, {7, 8}}, [][]int{{6, 5, 4}, {8, 7}})
		if err != nil {
			t.Fatal(err)
		}
		att, err := m.ForcedAttention(b, NewGraphCache(0))
		if err != nil {
			t.Fatal(err)
		}
		uniform := true
		for i, rows := range att {
			n := float64(len(b.Src[i][:b.SrcLens()[i]]))
			for _, row := range rows {
				for _, w := range row {
					if math.Abs(w-1/n) > 1e-12 {
						uniform = false
					}
				}
			}
		}
		if uniform != c.uniform {
			t.Errorf("bag_gain %v: uniform attention %v, want %v (%v)", c.cfg.EncoderSettings, uniform, c.uniform, att)
		}
	}
	// the gradients at another gain, and a checkpoint records the setting
	half := cfg
	half.EncoderSettings = map[string][]float64{"bag_gain": {0.5}}
	gradCase(t, half, 2, 2, 4, 0, 3e-5, func(es []gradcheck.Entry) (gradcheck.Entry, float64) { return gradcheck.Worst(es, 1e-4) })
	js, err := json.Marshal(half)
	if err != nil || !strings.Contains(string(js), `"encoder_settings":{"bag_gain":[0.5]}`) {
		t.Errorf("saved config %s (%v)", js, err)
	}
	var back Config
	if err := json.Unmarshal(js, &back); err != nil || back.Setting("bag_gain")[0] != 0.5 {
		t.Errorf("read back %+v (%v)", back, err)
	}
}

// TestLegacyCheckpointSettings: a configuration saved before encoders
// declared their settings kept the cnn's among its own keys; it reads back
// as the cnn's settings, with the defaults of those it did not keep.
func TestLegacyCheckpointSettings(t *testing.T) {
	var c Config
	if err := json.Unmarshal([]byte(`{"encoder":"cnn","conv":[8,16],"conv_stride":[2,1],"conv_kernel":2,"image_c":3}`), &c); err != nil {
		t.Fatal(err)
	}
	if got := []any{c.IntsSetting("conv"), c.IntsSetting("conv_stride"), c.IntSetting("conv_kernel"), c.ImageC}; got[0].([]int)[1] != 16 || got[1].([]int)[1] != 1 || got[2] != 2 || got[3] != 3 {
		t.Errorf("legacy cnn config read as %v", got)
	}
	var p Config
	if err := json.Unmarshal([]byte(`{"encoder":"patches","regions":64,"region_size":192}`), &p); err != nil {
		t.Fatal(err)
	}
	if g := p.EncoderSettings["patch"]; len(g) != 1 || g[0] != 8 {
		t.Errorf("legacy patches config: patch %v, want the default [8] recorded", g)
	}
}
