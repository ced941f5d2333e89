package opencl

import (
	"sync"

	"github.com/ebitengine/purego"
)

var (
	shimOnce sync.Once
	shimFn   func() int64
)

// LibraryLaunches is the number of kernels launched so far by libraries
// that call libOpenCL through the dynamic linker (CLBlast), as counted by
// the bench/clcount shim when it is preloaded (LD_PRELOAD; `make
// count-launches`); ok is false without it. Our own launches bypass the
// shim (bound with dlsym on libOpenCL's handle), so this is CLBlast's part
// alone.
func LibraryLaunches() (n int64, ok bool) {
	shimOnce.Do(func() {
		addr, err := purego.Dlsym(purego.RTLD_DEFAULT, "attnzoo_clcount_launches")
		if err != nil || addr == 0 {
			return
		}
		purego.RegisterFunc(&shimFn, addr)
	})
	if shimFn == nil {
		return 0, false
	}
	return shimFn(), true
}
