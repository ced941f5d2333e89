package opencl

import "sync"

// Usage is what this process holds on one device, counted by this package
// as it creates and releases: contexts open, buffers allocated and their
// bytes. Held counts the contexts that were closed while something still
// referenced them (clGetContextInfo's CL_CONTEXT_REFERENCE_COUNT above 1
// after our release of the queue and CLBlast's cache): a buffer or program
// not released keeps its context, and everything in it, on the device.
type Usage struct {
	Contexts, Buffers int
	Bytes             int64
	Held              int
}

// usage is the process's Usage per device (by cl_device_id).
var usage = struct {
	sync.Mutex
	m map[uintptr]Usage
}{m: map[uintptr]Usage{}}

// Usage is what the process holds on the device now.
func (d Device) Usage() Usage {
	usage.Lock()
	defer usage.Unlock()
	return usage.m[d.id]
}

// account adds to the device's Usage.
func account(dev uintptr, f func(*Usage)) {
	usage.Lock()
	u := usage.m[dev]
	f(&u)
	usage.m[dev] = u
	usage.Unlock()
}
