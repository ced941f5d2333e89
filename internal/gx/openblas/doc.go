// Package openblas switches every matrix product to OpenBLAS through gonum's
// netlib cgo bindings when the module is built with -tags openblas (and
// CGO_LDFLAGS=-lopenblas); without the tag it is empty and the products run
// on gonum's pure-Go BLAS. It is a package of its own because a package
// that uses cgo cannot hold Go assembly (internal/gx has some).
package openblas
