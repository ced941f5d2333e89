package seq2seq

import "fmt"

// checkHeld refuses a checkpoint whose configuration asks for tensors
// larger than all the values the file holds: the model is never built, so a
// corrupt or hostile size (hidden = 10⁹) cannot allocate gigabytes. Each
// product is a parameter New would make (embeddings, recurrent and output
// weights, the concat scorer, the region projection), in float64 so it
// cannot overflow.
func checkHeld(c Config, held int) error {
	H, E, A := float64(c.Hidden), float64(c.Embed), float64(c.Attention)
	for _, p := range []struct {
		what string
		n    float64
	}{
		{"hidden × hidden", H * H}, {"tgt_vocab × embed", float64(c.TgtVocab) * E},
		{"tgt_vocab × hidden", float64(c.TgtVocab) * H}, {"src_vocab × embed", float64(c.SrcVocab) * E},
		{"attention × hidden", A * H}, {"max_src_len × hidden", float64(c.MaxSrcLen) * H},
		{"hidden × region_size", H * float64(c.RegionSize)},
	} {
		if p.n > float64(held) {
			return fmt.Errorf("the configuration asks for %s = %.3g values in one parameter, and the checkpoint holds %d in all", p.what, p.n, held)
		}
	}
	for _, s := range EncoderSettingsOf(c.Encoder) {
		if !s.Size {
			continue
		}
		for l, ch := range c.Setting(s.Name) {
			if ch > float64(held) {
				return fmt.Errorf("the configuration asks for %s = %g in entry %d of its encoder setting %s, and the checkpoint holds %d values in all", s.Name, ch, l+1, s.Name, held)
			}
		}
	}
	return nil
}
