//go:build openblas

package gx

import (
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"github.com/attnzoo/attnzoo/internal/gx/openblas"
)

func init() {
	blasName = "openblas (cgo)"
	blasThreads = openblas.Threads
	kern.SetBLASThreads = openblas.SetThreads
}
