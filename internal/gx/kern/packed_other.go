//go:build !amd64

package kern

const hasAVX512 = false

func micro(kk int, strip, panel, c []float32, ldc int, load bool) {
	microGo(kk, strip, panel, c, ldc, load)
}
