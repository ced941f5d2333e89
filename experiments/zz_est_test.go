package experiments

import (
	"fmt"
	"testing"
)

func TestPrintEstimates(t *testing.T) {
	for _, f := range []string{"quickstart.toml", "/work/baseline/exp/reverse-scorers-s1.toml", "captioning-quickstart.toml"} {
		e, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := e.Runs()
		p, _ := e.plan(runs, 2, 1e15)
		fmt.Printf("%s: %s peak %s\n", f, p, humanBytes(p.Peak))
		for i, x := range p.Each {
			fmt.Printf("  %s: P=%.0f w=%s act=%s dec=%s data=%s\n", runs[i].ID, x.Params, humanBytes(x.Weights), humanBytes(x.Activations), humanBytes(x.Decoding), humanBytes(x.Data))
		}
	}
}
