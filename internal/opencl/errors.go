package opencl

import (
	"fmt"
	"strings"
)

// Error is a failed OpenCL or CLBlast call: the function and its status
// code, named as in the C headers.
type Error struct {
	Func string // e.g. "clBuildProgram"
	Code int32
	Log  string // a program's build log, when Func is clBuildProgram
}

func (e *Error) Error() string {
	s := fmt.Sprintf("opencl: %s: %s (%d)", e.Func, CodeName(e.Code), e.Code)
	if e.Log != "" {
		s += ":\n" + e.Log
	}
	return s
}

// check turns a status code into an *Error (nil for CL_SUCCESS).
func check(fn string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{Func: fn, Code: code}
}

// CodeName is the name of an OpenCL 1.2, extension, vendor or CLBlast
// status code, or "unknown status" for a code none of them defines.
func CodeName(code int32) string {
	for _, r := range codeRuns {
		i, names := int(r.first)-int(code), strings.Fields(r.names)
		if i >= 0 && i < len(names) && names[i] != "-" {
			return names[i]
		}
	}
	if code == -9999 {
		return nvidiaFault
	}
	return "unknown status"
}

// codeRuns name the status codes in runs of consecutive codes: the i-th
// name of a run is code first − i ("-": no such code).
//
// OpenCL 1.2's cl.h, the ICD loader's cl_khr_icd (-1001) and cl_gl.h
// (-1000); CLBlast's own codes (clblast_c.h: the others it returns are
// OpenCL's); then those of extensions and vendors that a driver may return
// to the calls this package makes, from Khronos's CL/cl_ext.h
// (OpenCL-Headers as Debian's opencl-c-headers 3.0~2023.02.06-1 ships
// them): cl_ext_device_fission (AMD's and Intel's drivers),
// cl_intel_accelerator, cl_arm_controlled_kernel_termination,
// cl_khr_terminate_context (the context was terminated, after a fault),
// cl_khr_command_buffer, cl_khr_command_buffer_mutable_dispatch and
// cl_khr_semaphore. The interop extensions' codes (D3D10/D3D11/DX9
// -1002…-1013, EGL -1092/-1093, VA-API -1098…-1101) are left out: this
// package never calls those extensions, and -1007…-1024 are CLBlast's.
var codeRuns = []struct {
	first int32
	names string
}{
	{0, "CL_SUCCESS CL_DEVICE_NOT_FOUND CL_DEVICE_NOT_AVAILABLE CL_COMPILER_NOT_AVAILABLE CL_MEM_OBJECT_ALLOCATION_FAILURE " +
		"CL_OUT_OF_RESOURCES CL_OUT_OF_HOST_MEMORY CL_PROFILING_INFO_NOT_AVAILABLE CL_MEM_COPY_OVERLAP CL_IMAGE_FORMAT_MISMATCH " +
		"CL_IMAGE_FORMAT_NOT_SUPPORTED CL_BUILD_PROGRAM_FAILURE CL_MAP_FAILURE CL_MISALIGNED_SUB_BUFFER_OFFSET " +
		"CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST CL_COMPILE_PROGRAM_FAILURE CL_LINKER_NOT_AVAILABLE CL_LINK_PROGRAM_FAILURE " +
		"CL_DEVICE_PARTITION_FAILED CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
	{-30, "CL_INVALID_VALUE CL_INVALID_DEVICE_TYPE CL_INVALID_PLATFORM CL_INVALID_DEVICE CL_INVALID_CONTEXT " +
		"CL_INVALID_QUEUE_PROPERTIES CL_INVALID_COMMAND_QUEUE CL_INVALID_HOST_PTR CL_INVALID_MEM_OBJECT " +
		"CL_INVALID_IMAGE_FORMAT_DESCRIPTOR CL_INVALID_IMAGE_SIZE CL_INVALID_SAMPLER CL_INVALID_BINARY CL_INVALID_BUILD_OPTIONS " +
		"CL_INVALID_PROGRAM CL_INVALID_PROGRAM_EXECUTABLE CL_INVALID_KERNEL_NAME CL_INVALID_KERNEL_DEFINITION CL_INVALID_KERNEL " +
		"CL_INVALID_ARG_INDEX CL_INVALID_ARG_VALUE CL_INVALID_ARG_SIZE CL_INVALID_KERNEL_ARGS CL_INVALID_WORK_DIMENSION " +
		"CL_INVALID_WORK_GROUP_SIZE CL_INVALID_WORK_ITEM_SIZE CL_INVALID_GLOBAL_OFFSET CL_INVALID_EVENT_WAIT_LIST " +
		"CL_INVALID_EVENT CL_INVALID_OPERATION CL_INVALID_GL_OBJECT CL_INVALID_BUFFER_SIZE CL_INVALID_MIP_LEVEL " +
		"CL_INVALID_GLOBAL_WORK_SIZE CL_INVALID_PROPERTY CL_INVALID_IMAGE_DESCRIPTOR CL_INVALID_COMPILER_OPTIONS " +
		"CL_INVALID_LINKER_OPTIONS CL_INVALID_DEVICE_PARTITION_COUNT"},
	{-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR CL_PLATFORM_NOT_FOUND_KHR"},
	{-1007, "CLBlastInsufficientMemoryY CLBlastInsufficientMemoryX CLBlastInsufficientMemoryC CLBlastInsufficientMemoryB " +
		"CLBlastInsufficientMemoryA CLBlastInvalidIncrementY CLBlastInvalidIncrementX CLBlastInvalidLeadDimC " +
		"CLBlastInvalidLeadDimB CLBlastInvalidLeadDimA CLBlastInvalidDimension CLBlastInvalidVectorY CLBlastInvalidVectorX " +
		"CLBlastInvalidMatrixC CLBlastInvalidMatrixB CLBlastInvalidMatrixA - CLBlastNotImplemented"},
	{-2036, "CLBlastInsufficientMemoryZ CLBlastInvalidIncrementZ CLBlastInvalidVectorZ CLBlastUnexpectedError " +
		"CLBlastUnknownError CLBlastDatabaseError CLBlastInsufficientMemoryScalar CLBlastInvalidVectorScalar " +
		"CLBlastNoDoublePrecision CLBlastNoHalfPrecision CLBlastInvalidLocalMemUsage CLBlastMissingOverrideParameter " +
		"CLBlastInvalidOverrideKernel CLBlastInvalidBatchCount CLBlastInsufficientMemoryTemp"},
	{-1057, "CL_DEVICE_PARTITION_FAILED_EXT CL_INVALID_PARTITION_COUNT_EXT CL_INVALID_PARTITION_NAME_EXT"},
	{-1094, "CL_INVALID_ACCELERATOR_INTEL CL_INVALID_ACCELERATOR_TYPE_INTEL CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL " +
		"CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
	{-1108, "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM"},
	{-1121, "CL_CONTEXT_TERMINATED_KHR"},
	{-1138, "CL_INVALID_COMMAND_BUFFER_KHR CL_INVALID_SYNC_POINT_WAIT_LIST_KHR CL_INCOMPATIBLE_COMMAND_QUEUE_KHR " +
		"CL_INVALID_MUTABLE_COMMAND_KHR CL_INVALID_SEMAPHORE_KHR"},
}

// nvidiaFault names -9999, which NVIDIA's driver returns from the call
// after a kernel faulted (an access outside a buffer, in practice). It is
// in no header; the name is the one proposed for it in
// KhronosGroup/OpenCL-Docs pull request #927 (2023), where NVIDIA's
// reviewer calls it a generic kernel execution error.
const nvidiaFault = "CL_KERNEL_ILLEGAL_BUFFER_READ_WRITE_NV (NVIDIA: a kernel failed, e.g. read or wrote outside a buffer)"

// release frees the OpenCL object *h with free (the call fn) and zeroes *h,
// so a second Release, or one of a zero handle, does nothing.
func release(fn string, h *uintptr, free func(uintptr) int32) error {
	if *h == 0 {
		return nil
	}
	err := check(fn, free(*h))
	*h = 0
	return err
}
