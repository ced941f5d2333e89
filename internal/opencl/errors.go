package opencl

import "fmt"

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
	for _, m := range []map[int32]string{clCodes, extCodes, clblastCodes} {
		if s, ok := m[code]; ok {
			return s
		}
	}
	return "unknown status"
}

// clCodes are the status codes of OpenCL 1.2's cl.h and of the ICD
// loader's cl_khr_icd extension (-1001).
var clCodes = map[int32]string{
	0:     "CL_SUCCESS",
	-1:    "CL_DEVICE_NOT_FOUND",
	-2:    "CL_DEVICE_NOT_AVAILABLE",
	-3:    "CL_COMPILER_NOT_AVAILABLE",
	-4:    "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5:    "CL_OUT_OF_RESOURCES",
	-6:    "CL_OUT_OF_HOST_MEMORY",
	-7:    "CL_PROFILING_INFO_NOT_AVAILABLE",
	-8:    "CL_MEM_COPY_OVERLAP",
	-9:    "CL_IMAGE_FORMAT_MISMATCH",
	-10:   "CL_IMAGE_FORMAT_NOT_SUPPORTED",
	-11:   "CL_BUILD_PROGRAM_FAILURE",
	-12:   "CL_MAP_FAILURE",
	-13:   "CL_MISALIGNED_SUB_BUFFER_OFFSET",
	-14:   "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	-15:   "CL_COMPILE_PROGRAM_FAILURE",
	-16:   "CL_LINKER_NOT_AVAILABLE",
	-17:   "CL_LINK_PROGRAM_FAILURE",
	-18:   "CL_DEVICE_PARTITION_FAILED",
	-19:   "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	-30:   "CL_INVALID_VALUE",
	-31:   "CL_INVALID_DEVICE_TYPE",
	-32:   "CL_INVALID_PLATFORM",
	-33:   "CL_INVALID_DEVICE",
	-34:   "CL_INVALID_CONTEXT",
	-35:   "CL_INVALID_QUEUE_PROPERTIES",
	-36:   "CL_INVALID_COMMAND_QUEUE",
	-37:   "CL_INVALID_HOST_PTR",
	-38:   "CL_INVALID_MEM_OBJECT",
	-39:   "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
	-40:   "CL_INVALID_IMAGE_SIZE",
	-41:   "CL_INVALID_SAMPLER",
	-42:   "CL_INVALID_BINARY",
	-43:   "CL_INVALID_BUILD_OPTIONS",
	-44:   "CL_INVALID_PROGRAM",
	-45:   "CL_INVALID_PROGRAM_EXECUTABLE",
	-46:   "CL_INVALID_KERNEL_NAME",
	-47:   "CL_INVALID_KERNEL_DEFINITION",
	-48:   "CL_INVALID_KERNEL",
	-49:   "CL_INVALID_ARG_INDEX",
	-50:   "CL_INVALID_ARG_VALUE",
	-51:   "CL_INVALID_ARG_SIZE",
	-52:   "CL_INVALID_KERNEL_ARGS",
	-53:   "CL_INVALID_WORK_DIMENSION",
	-54:   "CL_INVALID_WORK_GROUP_SIZE",
	-55:   "CL_INVALID_WORK_ITEM_SIZE",
	-56:   "CL_INVALID_GLOBAL_OFFSET",
	-57:   "CL_INVALID_EVENT_WAIT_LIST",
	-58:   "CL_INVALID_EVENT",
	-59:   "CL_INVALID_OPERATION",
	-60:   "CL_INVALID_GL_OBJECT",
	-61:   "CL_INVALID_BUFFER_SIZE",
	-62:   "CL_INVALID_MIP_LEVEL",
	-63:   "CL_INVALID_GLOBAL_WORK_SIZE",
	-64:   "CL_INVALID_PROPERTY",
	-65:   "CL_INVALID_IMAGE_DESCRIPTOR",
	-66:   "CL_INVALID_COMPILER_OPTIONS",
	-67:   "CL_INVALID_LINKER_OPTIONS",
	-68:   "CL_INVALID_DEVICE_PARTITION_COUNT",
	-1000: "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
}

// extCodes are the status codes of extensions and vendors that a driver
// may return to the calls this package makes. All but -9999 are from
// Khronos's CL/cl_ext.h (OpenCL-Headers as Debian's opencl-c-headers
// 3.0~2023.02.06-1 ships them). The interop extensions' codes (cl_gl.h's
// -1000 is in clCodes; D3D10/D3D11/DX9 -1002…-1013, EGL -1092/-1093, VA-API
// -1098…-1101) are left out: this package never calls those extensions,
// and -1007…-1024 are CLBlast's own codes (clblastCodes).
var extCodes = map[int32]string{
	// cl_ext_device_fission (AMD's and Intel's drivers)
	-1057: "CL_DEVICE_PARTITION_FAILED_EXT",
	-1058: "CL_INVALID_PARTITION_COUNT_EXT",
	-1059: "CL_INVALID_PARTITION_NAME_EXT",
	// cl_intel_accelerator
	-1094: "CL_INVALID_ACCELERATOR_INTEL",
	-1095: "CL_INVALID_ACCELERATOR_TYPE_INTEL",
	-1096: "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL",
	-1097: "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL",
	// cl_arm_controlled_kernel_termination
	-1108: "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM",
	// cl_khr_terminate_context: the context was terminated (after a fault)
	-1121: "CL_CONTEXT_TERMINATED_KHR",
	// cl_khr_command_buffer, cl_khr_command_buffer_mutable_dispatch, cl_khr_semaphore
	-1138: "CL_INVALID_COMMAND_BUFFER_KHR",
	-1139: "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR",
	-1140: "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR",
	-1141: "CL_INVALID_MUTABLE_COMMAND_KHR",
	-1142: "CL_INVALID_SEMAPHORE_KHR",
	// NVIDIA's driver returns -9999 from the call after a kernel faulted
	// (an access outside a buffer, in practice). It is in no header; the
	// name is the one proposed for it in KhronosGroup/OpenCL-Docs pull
	// request #927 (2023), where NVIDIA's reviewer calls it a generic
	// kernel execution error.
	-9999: "CL_KERNEL_ILLEGAL_BUFFER_READ_WRITE_NV (NVIDIA: a kernel failed, e.g. read or wrote outside a buffer)",
}

// clblastCodes are CLBlast's own status codes (clblast_c.h); the others it
// returns are OpenCL's.
var clblastCodes = map[int32]string{
	-1024: "CLBlastNotImplemented",
	-1022: "CLBlastInvalidMatrixA",
	-1021: "CLBlastInvalidMatrixB",
	-1020: "CLBlastInvalidMatrixC",
	-1019: "CLBlastInvalidVectorX",
	-1018: "CLBlastInvalidVectorY",
	-1017: "CLBlastInvalidDimension",
	-1016: "CLBlastInvalidLeadDimA",
	-1015: "CLBlastInvalidLeadDimB",
	-1014: "CLBlastInvalidLeadDimC",
	-1013: "CLBlastInvalidIncrementX",
	-1012: "CLBlastInvalidIncrementY",
	-1011: "CLBlastInsufficientMemoryA",
	-1010: "CLBlastInsufficientMemoryB",
	-1009: "CLBlastInsufficientMemoryC",
	-1008: "CLBlastInsufficientMemoryX",
	-1007: "CLBlastInsufficientMemoryY",
	-2050: "CLBlastInsufficientMemoryTemp",
	-2049: "CLBlastInvalidBatchCount",
	-2048: "CLBlastInvalidOverrideKernel",
	-2047: "CLBlastMissingOverrideParameter",
	-2046: "CLBlastInvalidLocalMemUsage",
	-2045: "CLBlastNoHalfPrecision",
	-2044: "CLBlastNoDoublePrecision",
	-2043: "CLBlastInvalidVectorScalar",
	-2042: "CLBlastInsufficientMemoryScalar",
	-2041: "CLBlastDatabaseError",
	-2040: "CLBlastUnknownError",
	-2039: "CLBlastUnexpectedError",
	-2038: "CLBlastInvalidVectorZ",
	-2037: "CLBlastInvalidIncrementZ",
	-2036: "CLBlastInsufficientMemoryZ",
}

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
