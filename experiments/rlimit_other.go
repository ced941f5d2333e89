//go:build !unix

package experiments

// rlimitAS: no RLIMIT_AS outside unix.
func rlimitAS() (float64, bool) { return 0, false }
