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
// shared/GORGONIA.md: Reshape aliasing, slices merged when their bounds differ
// by a multiple of 256, SoftMax seeding every row's maximum with element
// [0,0]). The attention hot path therefore runs on our own ops (ops_*.go):
// batched matrix–vector products, a row-wise linear map, the fused additive
// score, masked softmax and L2 normalisation, each with its gradient, and
// each checked against central finite differences in ops_test.go.
package gx
