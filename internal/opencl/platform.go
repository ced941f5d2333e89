package opencl

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// DeviceType is a device's cl_device_type bitfield.
type DeviceType uint64

// The device types of OpenCL 1.2.
const (
	TypeDefault     DeviceType = 1 << 0
	TypeCPU         DeviceType = 1 << 1
	TypeGPU         DeviceType = 1 << 2
	TypeAccelerator DeviceType = 1 << 3
	TypeCustom      DeviceType = 1 << 4
	typeAll         DeviceType = 0xFFFFFFFF
)

// String names the type's bits: "gpu", "cpu", "cpu+default", ….
func (t DeviceType) String() string {
	var s []string
	for _, b := range []struct {
		t    DeviceType
		name string
	}{{TypeGPU, "gpu"}, {TypeCPU, "cpu"}, {TypeAccelerator, "accelerator"}, {TypeCustom, "custom"}, {TypeDefault, "default"}} {
		if t&b.t != 0 {
			s = append(s, b.name)
		}
	}
	if len(s) == 0 {
		return fmt.Sprintf("type %#x", uint64(t))
	}
	return strings.Join(s, "+")
}

// Platform is one installed OpenCL driver and its devices.
type Platform struct {
	Index                 int // P in "opencl:P:D"
	Name, Vendor, Version string
	Devices               []Device
	id                    uintptr
}

// Device is one device of a platform.
type Device struct {
	Platform, Index int    // P and D in "opencl:P:D"
	PlatformName    string // its platform's name
	Name, Vendor    string
	Type            DeviceType
	GlobalMem       uint64 // bytes
	MaxAlloc        uint64 // bytes in one buffer
	ComputeUnits    uint32
	FP64            bool // has cl_khr_fp64: float64 kernels can run on it
	// BaseAlign is CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: the offsets at
	// which a sub-buffer may start (Buffer.Sub).
	BaseAlign uint32
	// HostUnified is CL_DEVICE_HOST_UNIFIED_MEMORY: the device shares the
	// host's memory (an integrated GPU, a CPU); false on a discrete card.
	HostUnified bool
	// MaxWorkGroup is the largest work-group (CL_DEVICE_MAX_WORK_GROUP_SIZE).
	MaxWorkGroup int
	// MaxParameterSize is the most bytes of arguments a kernel may take
	// (CL_DEVICE_MAX_PARAMETER_SIZE: at least 1024; a buffer argument
	// takes the size of a pointer).
	MaxParameterSize int
	id               uintptr
}

// Key is the device's name in experiment files and --device: "opencl:P:D".
func (d Device) Key() string { return fmt.Sprintf("opencl:%d:%d", d.Platform, d.Index) }

// cl_platform_info and cl_device_info parameters.
const (
	platformName    = 0x0902
	platformVendor  = 0x0903
	platformVersion = 0x0901

	deviceType         = 0x1000
	deviceComputeUnits = 0x1002
	deviceMaxWorkGroup = 0x1004
	deviceMaxAlloc     = 0x1010
	deviceMaxParams    = 0x1017
	deviceBaseAlign    = 0x1019
	deviceGlobalMem    = 0x101F
	deviceName         = 0x102B
	deviceVendor       = 0x102C
	deviceExtensions   = 0x1030
	deviceHostUnified  = 0x1035

	platformNotFound = -1001 // CL_PLATFORM_NOT_FOUND_KHR
	deviceNotFound   = -1    // CL_DEVICE_NOT_FOUND
)

// Platforms lists the OpenCL platforms and their devices. With no library
// or no driver the error wraps ErrUnavailable and says what to install.
func Platforms() ([]Platform, error) {
	a, err := load()
	if err != nil {
		return nil, err
	}
	var n uint32
	code := a.GetPlatformIDs(0, nil, &n)
	if code == platformNotFound || (code == 0 && n == 0) {
		return nil, fmt.Errorf("opencl: no OpenCL platform: %s found no driver (clGetPlatformIDs: %s): %w; %s",
			LibOpenCL, CodeName(platformNotFound), ErrUnavailable, driverHint)
	}
	if err := check("clGetPlatformIDs", code); err != nil {
		return nil, err
	}
	ids := make([]uintptr, n)
	if err := check("clGetPlatformIDs", a.GetPlatformIDs(n, &ids[0], &n)); err != nil {
		return nil, err
	}
	ps := make([]Platform, 0, n)
	for i, id := range ids[:n] {
		p := Platform{Index: i, id: id}
		info := func(param uint32) (string, error) {
			return infoString("clGetPlatformInfo", func(size uintptr, v unsafe.Pointer, ret *uintptr) int32 {
				return a.GetPlatformInfo(id, param, size, v, ret)
			})
		}
		for param, dst := range map[uint32]*string{platformName: &p.Name, platformVendor: &p.Vendor, platformVersion: &p.Version} {
			if *dst, err = info(param); err != nil {
				return nil, err
			}
		}
		if p.Devices, err = devices(a, p); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// devices lists platform p's devices; a platform with none has an empty list.
func devices(a *api, p Platform) ([]Device, error) {
	var n uint32
	code := a.GetDeviceIDs(p.id, uint64(typeAll), 0, nil, &n)
	if code == deviceNotFound || (code == 0 && n == 0) {
		return nil, nil
	}
	if err := check("clGetDeviceIDs", code); err != nil {
		return nil, err
	}
	ids := make([]uintptr, n)
	if err := check("clGetDeviceIDs", a.GetDeviceIDs(p.id, uint64(typeAll), n, &ids[0], &n)); err != nil {
		return nil, err
	}
	ds := make([]Device, 0, n)
	for j, id := range ids[:n] {
		d := Device{Platform: p.Index, Index: j, PlatformName: p.Name, id: id}
		str := func(param uint32) (string, error) {
			return infoString("clGetDeviceInfo", func(size uintptr, v unsafe.Pointer, ret *uintptr) int32 {
				return a.GetDeviceInfo(id, param, size, v, ret)
			})
		}
		var ext string
		var err error
		for _, s := range []struct {
			param uint32
			dst   *string
		}{{deviceName, &d.Name}, {deviceVendor, &d.Vendor}, {deviceExtensions, &ext}} {
			if *s.dst, err = str(s.param); err != nil {
				return nil, err
			}
		}
		d.FP64 = slices.Contains(strings.Fields(ext), "cl_khr_fp64")
		var typ uint64
		var bits uint32
		var maxWG, maxParams uintptr // size_t
		for _, s := range []struct {
			param uint32
			v     unsafe.Pointer
			size  uintptr
		}{{deviceType, unsafe.Pointer(&typ), 8}, {deviceGlobalMem, unsafe.Pointer(&d.GlobalMem), 8},
			{deviceMaxAlloc, unsafe.Pointer(&d.MaxAlloc), 8}, {deviceComputeUnits, unsafe.Pointer(&d.ComputeUnits), 4},
			{deviceBaseAlign, unsafe.Pointer(&bits), 4}, {deviceMaxWorkGroup, unsafe.Pointer(&maxWG), unsafe.Sizeof(maxWG)},
			{deviceMaxParams, unsafe.Pointer(&maxParams), unsafe.Sizeof(maxParams)}} {
			if err := check("clGetDeviceInfo", a.GetDeviceInfo(id, s.param, s.size, s.v, nil)); err != nil {
				return nil, err
			}
		}
		d.Type, d.BaseAlign, d.MaxWorkGroup, d.MaxParameterSize = DeviceType(typ), bits/8, int(maxWG), int(maxParams)
		var unified uint32 // cl_bool; deprecated by OpenCL 2.0, still answered
		if a.GetDeviceInfo(id, deviceHostUnified, 4, unsafe.Pointer(&unified), nil) == 0 {
			d.HostUnified = unified != 0
		} else {
			d.HostUnified = d.Type&TypeGPU == 0 || strings.Contains(strings.ToLower(d.Vendor), "intel")
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// infoString reads a string-valued clGet*Info parameter: its size, then
// its bytes, without the C string's terminating NUL.
func infoString(fn string, get func(size uintptr, v unsafe.Pointer, ret *uintptr) int32) (string, error) {
	var size uintptr
	if err := check(fn, get(0, nil, &size)); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	b := make([]byte, size)
	if err := check(fn, get(size, unsafe.Pointer(&b[0]), nil)); err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.TrimRight(string(b), "\x00")), nil
}
