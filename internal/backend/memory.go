package backend

// Memory is the family of a backend's own buffers: float32 values that
// cross to and from the host only through Write and Read. A host backend's
// buffers are Go slices (Buf.F32), a device's its Mem. Computations queued
// on a device may not have run when their method returns: Read waits for
// everything queued before it.
type Memory interface {
	// Alloc returns a buffer of n ≥ 1 float32 values, zeroed or not.
	Alloc(n int) (Buf, error)
	// Free releases b; it is not used afterwards.
	Free(b Buf) error
	// Write copies src into b (len(src) == b.Len()); src may change once
	// it returns.
	Write(b Buf, src []float32) error
	// Read copies b into dst (len(dst) == b.Len()) once everything queued
	// before it has run.
	Read(dst []float32, b Buf) error
	// WriteAsync is Write without making the host wait for the device's
	// queue: src may still change once it returns (a device copies it
	// first) and what is queued after it sees the new values. A step's
	// inputs go in this way.
	WriteAsync(b Buf, src []float32) error
	// ReadAsync queues a copy of b's first len(dst) values into dst after
	// everything queued before it, and returns at once: dst holds the
	// values once the Pending's Wait returns, and must stay untouched until
	// then. A step's loss comes back this way, collected a step later.
	ReadAsync(dst []float32, b Buf) (Pending, error)
}

// Pending is a transfer that may not have run yet.
type Pending interface {
	// Wait returns once the transfer has run.
	Wait() error
}

// Done is a Pending that has run: a host backend's, whose copies are made
// at once.
type Done struct{}

// Wait returns nil at once.
func (Done) Wait() error { return nil }
