package metrics

import "testing"

// TestLower: Python 3's str.lower on each input (what sacreBLEU's -lc
// applies), printed by python3 -c "print(repr(S.lower()))".
func TestLower(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"The Cat", "the cat"},
		{"ΟΔΟΣ", "οδος"},   // Σ at a word's end: final ς
		{"ΣΑ", "σα"},       // nothing cased before it: σ
		{"Α.Σ.", "α.ς."},   // "." is case-ignorable: skipped both ways
		{"ΑΣ'Α", "ασ'α"},   // a cased letter after "'": not final
		{"İx", "i\u0307x"}, // İ's full mapping is two characters
		{"ÉCOLE Straße", "école straße"},
	} {
		if got := Lower(tt.in); got != tt.want {
			t.Errorf("Lower(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
