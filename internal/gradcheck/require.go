package gradcheck

import (
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Require checks build's gradients with respect to params (Check with opt)
// and fails t when the worst relative error, with Worst's floor, passes
// 1e-6; it logs how many entries it checked and the worst error, and
// returns the entries for further checks.
func Require(t testing.TB, build Build, params []*gx.Param, opt Options, floor float64) []Entry {
	t.Helper()
	es, err := Check(build, params, opt)
	if err != nil {
		t.Fatal(err)
	}
	e, r := Worst(es, floor)
	if r > 1e-6 {
		t.Errorf("worst relative error %.3g at %v", r, e)
	}
	t.Logf("%d entries, worst relative error %.2g", len(es), r)
	return es
}
