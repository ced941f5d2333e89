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
// [0,0]). The attention hot path therefore runs on our own ops (ops_*.go):
// batched matrix–vector products, a row-wise linear map, the fused additive
// score, masked softmax and L2 normalisation, each with its gradient, and
// each checked against central finite differences in ops_test.go.
//
// Speed (bench/README.md: the toy-reverse workload). The hot paths are fused
// ops with hand-written backward passes, each checked against the unfused
// composition and against finite differences: a GRU step in two ops
// (GRUGates, GRUBlend), a whole GRU layer over a sequence in one
// (GRUSequence, cuDNN-style), the additive score with its tanh kept for the
// backward pass (Additive), elementwise ops of our own (Tanh, Sigmoid, Sum,
// Sub, Mul). An op writes its output into the buffer the machine's plan
// gave it (plan.go), so a compiled graph run again allocates nothing. float32 elementwise
// loops run eight lanes at a time in AVX assembly where the processor has it
// (kern/fastmath_amd64.s), bit for bit the Go loops they replace; tanh and σ are
// a rational approximation within 4e-7 (kern/fastmath.go). Graphs run on
// our own Machine (exec.go, machine.go: one loop for the host and a
// device), not gorgonia's tape machine, whose per-op bookkeeping dominated
// small models and did not scale across cores; it sums the gradients of a
// node read at every step in one buffer (fold.go). Matrix
// products run on whatever BLAS gonum's blas32/blas64 have installed:
// OpenBLAS through cgo in a build with -tags openblas (package openblas;
// BLAS reports which), or gonum's pure-Go one, whose float32 products are
// replaced where there is AVX by a 4×16 register-blocked kernel of ours
// (kern/sgemm.go), with each weight transposed once per run.
//
// gorgonia keys a graph's nodes by a 32-bit hash, and its tape machine
// computed two different nodes with the same hash as one (graph_test.go).
// Our machine does not merge nodes, but Machine still refuses such a graph
// (ErrHashCollision) rather than depend on what gorgonia does with it; a
// graph built again with another salt (NewSaltedGraph) hashes differently.
package gx
