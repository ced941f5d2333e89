package experiments

// The backends a run's device key can name: each registers itself from its
// package's init (backend.RegisterDriver), and linking the package is all
// it takes. The cpu's comes with the engine; a new backend's package is
// imported here.
import _ "github.com/attnzoo/attnzoo/internal/device" // "gpu", "opencl:P:D"
