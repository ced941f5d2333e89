package opencl

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The launch path allocates nothing. purego's RegisterFunc calls through
// reflect, which allocates a value per argument and result (3–17 a launch
// before), so clSetKernelArg and clEnqueueNDRangeKernel are called through
// purego.SyscallN with their arguments as words: the values they point to
// are fields of the Kernel (on the heap, where the garbage collector does
// not move them), and the arguments of Launch are read through a type
// switch without being kept, so they do not escape their caller. The C
// arguments are words in the Kernel's sys array, passed to SyscallN as an
// existing slice (a variadic list would be a new one each call: SyscallN's
// arguments escape).

// argValue is what an argument was set to: its kind (0: not set) and its
// bits (a 4-byte value, or a buffer's id).
type argValue struct {
	kind uint8
	bits uint64
}

// Argument kinds.
const (
	argBuffer = 1 + iota
	argWord
)

// setArg sets argument i from a Go value.
func (k *Kernel) setArg(i int, arg any) error {
	switch v := arg.(type) {
	case *Buffer:
		if v == nil || v.mem == 0 {
			return fmt.Errorf("opencl: %s: argument %d is a released or nil buffer", k.Name, i)
		}
		k.mem = v.mem
		return k.setArgBytes(i, argValue{argBuffer, v.id}, unsafe.Sizeof(k.mem), unsafe.Pointer(&k.mem))
	case int:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("opencl: %s: argument %d = %d does not fit a C int", k.Name, i, v)
		}
		return k.setWord(i, uint32(int32(v)))
	case int32:
		return k.setWord(i, uint32(v))
	case uint32:
		return k.setWord(i, v)
	case float32:
		return k.setWord(i, math.Float32bits(v))
	}
	return fmt.Errorf("opencl: %s: argument %d has type %v (have: *Buffer, int, int32, uint32, float32)", k.Name, i, reflect.TypeOf(arg))
}

// setWord sets argument i to a 4-byte value (a C int, uint or float).
func (k *Kernel) setWord(i int, w uint32) error {
	k.word = w
	return k.setArgBytes(i, argValue{argWord, uint64(w)}, 4, unsafe.Pointer(&k.word))
}

// setArgBytes calls clSetKernelArg with size bytes at p (a field of k) and
// remembers v; where argument i holds v already it makes no call (and the
// field is not read).
func (k *Kernel) setArgBytes(i int, v argValue, size uintptr, p unsafe.Pointer) error {
	if i < len(k.set) && k.set[i] == v {
		return nil
	}
	if i >= len(k.set) { // the first launches only
		k.set = append(k.set, make([]argValue, i+1-len(k.set))...)
	}
	k.set[i] = argValue{} // unknown until it succeeds
	k.sys = [9]uintptr{k.h, uintptr(i), size, uintptr(p)}
	r, _, _ := purego.SyscallN(k.c.a.SetKernelArg, k.sys[:4]...)
	runtime.KeepAlive(k)
	if code := int32(r); code != 0 {
		return fmt.Errorf("%w: kernel %s, argument %d", check("clSetKernelArg", code), k.Name, i)
	}
	k.set[i] = v
	return nil
}

// enqueue calls clEnqueueNDRangeKernel with the arguments as set.
func (k *Kernel) enqueue(global, local []int) error {
	for i, v := range global {
		k.g[i] = uintptr(v)
	}
	k.sys = [9]uintptr{k.c.queue, k.h, uintptr(len(global)), 0, uintptr(unsafe.Pointer(&k.g[0]))}
	if local != nil {
		for i, v := range local {
			k.l[i] = uintptr(v)
		}
		k.sys[5] = uintptr(unsafe.Pointer(&k.l[0]))
	}
	r, _, _ := purego.SyscallN(k.c.a.EnqueueNDRangeKernel, k.sys[:]...)
	runtime.KeepAlive(k)
	if code := int32(r); code != 0 {
		return k.c.explain(fmt.Errorf("%w: kernel %s, global %v, local %v", check("clEnqueueNDRangeKernel", code), k.Name,
			k.g[:len(global)], k.l[:len(local)]))
	}
	return nil
}
