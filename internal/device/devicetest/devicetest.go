// Package devicetest gives tests of other packages the backends to run on:
// the cpu backend always, and the OpenCL device where a platform has one.
package devicetest

import (
	"os"
	"sync"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/device"
)

// RequireEnv makes a missing OpenCL platform fail the tests instead of
// skipping them (CI sets it: it installs pocl).
const RequireEnv = "ATTNZOO_REQUIRE_OPENCL"

var (
	once sync.Once
	dev  *device.OpenCL
	err  error
)

// OpenCL is the OpenCL device on the first device of the first platform
// with one, shared by a test binary's tests. Without one the test is
// skipped, or fails when RequireEnv is 1.
func OpenCL(t testing.TB) *device.OpenCL {
	t.Helper()
	once.Do(func() {
		d, e := device.Resolve(device.Spec{Kind: "opencl"})
		if e == nil {
			dev, e = device.NewOpenCL(d)
		}
		err = e
	})
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 but no OpenCL device: %v", RequireEnv, err)
		}
		t.Skipf("no OpenCL device (%v); set %s=1 to fail instead", err, RequireEnv)
	}
	return dev
}

// Each runs f once per backend: the cpu backend (a new one: its buffers Go
// slices), then the OpenCL device's (skipped, or failed with RequireEnv,
// where there is none).
func Each(t *testing.T, f func(t *testing.T, be backend.Backend)) {
	t.Helper()
	t.Run("cpu", func(t *testing.T) { f(t, cpu.New()) })
	t.Run("opencl", func(t *testing.T) { f(t, OpenCL(t).Backend()) })
}
