package kern

//go:noescape
func micro512(kk int, strip, panel, c *float32, ldc int, load bool)

// hasAVX512 reports whether the processor has AVX-512F and the operating
// system saves the ZMM registers and opmasks (XCR0 bits 5–7).
var hasAVX512 = func() bool {
	if !HasAVX {
		return false
	}
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return false
	}
	if _, b, _, _ := cpuid(7, 0); b&(1<<16) == 0 {
		return false
	}
	eax, _ := xgetbv()
	return eax&0xe6 == 0xe6
}()

// micro runs C[8×32] = (C if load, else 0) + strip · panel (packed.go).
func micro(kk int, strip, panel, c []float32, ldc int, load bool) {
	if hasAVX512 {
		_ = c[7*ldc+packNR-1]
		_ = strip[kk*packMR-1]
		_ = panel[kk*packNR-1]
		micro512(kk, &strip[0], &panel[0], &c[0], ldc, load)
		return
	}
	microGo(kk, strip, panel, c, ldc, load)
}
