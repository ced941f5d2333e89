// Package gx keeps gorgonia's graph API behind a few small helpers so that
// model code reads like its equations.
//
// A Graph carries the first error met while building, so a chain of calls
// needs no error check until the end (Graph.Err), and user input never
// reaches a panic. Parameters (Param) are named tensors that live outside any
// graph; Graph.Bind makes a node of one, and every graph that binds the same
// Param shares its storage.
//
// Shape conventions: a batch of queries is [B, D]; a batch of key or value
// sequences is [B, S, D]; scores, weights and masks are [B, S]. Tensors are
// row-major and dense.
//
// Several gorgonia v0.9.18 ops are wrong in ways that pass small tests (see
// docs/gorgonia.md: Reshape aliasing, slices merged when their bounds differ
// by a multiple of 256, SoftMax seeding every row's maximum with element
// [0,0]). The attention hot path therefore runs on our own ops (ops_*.go),
// each with its gradient checked against central finite differences in
// ops_test.go, the fused ones (GRUGates and GRUBlend, GRUSequence,
// Additive, Attention) against the unfused composition too. An op is
// written once against internal/backend (forward.go; the slice kernels are
// package kern's) and runs on our own Machine (exec.go, machine.go: one
// loop for the host and a device), not gorgonia's tape machine; its plan
// gives every value its memory (plan.go), so a compiled graph run again
// allocates nothing, and it sums a node's gradients in one buffer
// (fold.go). What the engine does because of gorgonia's hashes and
// unexported types is in gorgonia.go.
package gx
