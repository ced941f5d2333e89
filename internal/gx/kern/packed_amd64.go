package kern

//go:noescape
func micro512(kk int, strip, panel, c *float32, ldc int, load bool)

//go:noescape
func micro6x16(kk int, a *float32, rs, ks int, panel *float32, ps int, c *float32, ldc int, load bool)

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

// hasFMA reports whether the processor also has FMA3 (CPUID.1:ECX bit 12);
// with hasAVX2 (the YMM state saved: HasAVX), micro6x16 runs.
var hasFMA = func() bool {
	_, _, c, _ := cpuid(1, 0)
	return HasAVX && c&(1<<12) != 0
}()

// kernAVX512: C's 8×32 block in 16 zmm registers (micro512).
var kernAVX512 = &packKernel{name: "AVX-512", mr: 8, nr: 32, kc: 512, fast: true}

// kernAVX2: C's 6×16 block in 12 ymm registers (micro6x16); kc = 256 keeps
// a panel (16 KiB) in L1 with room for the strip (6 KiB). It reads A's
// strips in place.
var kernAVX2 = &packKernel{name: "AVX2", mr: 6, nr: 16, kc: 256, fast: true, inPlace: true}

// micro runs kn: C[mr×nr] = (C if load, else 0) + A[mr×kk] · B[kk×nr], A's
// row i at step l at a[i·rs + l·ks], B's row l at panel[l·ps] (a packed
// strip and panel, rs 1, ks mr, ps nr, are the only layout micro512 reads).
func micro(kn *packKernel, kk int, a []float32, rs, ks int, panel []float32, ps int, c []float32, ldc int, load bool) {
	switch kn {
	case kernAVX512:
		_ = c[7*ldc+31]
		_ = a[kk*8-1]
		_ = panel[kk*32-1]
		micro512(kk, &a[0], &panel[0], &c[0], ldc, load)
	case kernAVX2:
		_ = c[5*ldc+15]
		_ = a[(kk-1)*ks+5*rs]
		_ = panel[(kk-1)*ps+15]
		micro6x16(kk, &a[0], rs, ks, &panel[0], ps, &c[0], ldc, load)
	default:
		microGo(kn.mr, kn.nr, kk, a, rs, ks, panel, ps, c, ldc, load)
	}
}

// kernels lists the micro-kernels this processor runs, fastest first.
func kernels() []*packKernel {
	var ks []*packKernel
	if hasAVX512 {
		ks = append(ks, kernAVX512)
	}
	if hasAVX2 && hasFMA {
		ks = append(ks, kernAVX2)
	}
	return append(ks, kernGo)
}
