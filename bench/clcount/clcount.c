/*
 * clcount: an LD_PRELOAD shim that counts the OpenCL kernels CLBlast
 * launches, so that `attnzoo bench --device` can report a step's launches
 * with CLBlast's own kernels included (`make count-launches`).
 *
 * Why it sees CLBlast's launches and not attnzoo's: CLBlast calls
 * clEnqueueNDRangeKernel through its PLT, which the dynamic linker binds in
 * the global scope, where a preloaded library comes first; attnzoo binds
 * libOpenCL's functions with dlsym on libOpenCL's own handle (purego), a
 * lookup that never reaches a preloaded library. attnzoo counts its own
 * launches itself (device.Traffic). CLCOUNT_NAMES=1 prints each kernel
 * name the shim sees, the first time it sees it (to stderr), which shows
 * that they are all CLBlast's. (A Go program exits without running C
 * destructors, so the shim reports as it goes.)
 *
 * Built with no OpenCL headers: the few types are declared below as
 * OpenCL 1.2's cl.h declares them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef void *cl_command_queue, *cl_kernel, *cl_event;

#define CL_KERNEL_FUNCTION_NAME 0x1190

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
			     const size_t *, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*info_fn)(cl_kernel, cl_uint, size_t, void *, size_t *);

static enqueue_fn next_enqueue;
static info_fn kernel_info;
static long long launches;

/* attnzoo_clcount_launches is the number of clEnqueueNDRangeKernel calls
 * that reached the shim so far; attnzoo finds it with dlsym(RTLD_DEFAULT). */
long long attnzoo_clcount_launches(void) { return __atomic_load_n(&launches, __ATOMIC_RELAXED); }

/* The names seen so far (CLCOUNT_NAMES=1), small and linear: CLBlast has
 * a few dozen kernels. */
#define MAXNAMES 256
static char names[MAXNAMES][64];
static int nnames, want_names = -1;
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;

static void note(cl_kernel k) {
	char name[64] = "?";
	if (!kernel_info)
		kernel_info = (info_fn)dlsym(RTLD_NEXT, "clGetKernelInfo");
	if (kernel_info)
		kernel_info(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
	name[sizeof name - 1] = 0;
	pthread_mutex_lock(&names_mu);
	int seen = 0;
	for (int i = 0; i < nnames && !seen; i++)
		seen = strcmp(names[i], name) == 0;
	if (!seen && nnames < MAXNAMES) {
		strcpy(names[nnames++], name);
		fprintf(stderr, "clcount: launch %lld is the first of kernel %s\n", attnzoo_clcount_launches(), name);
	}
	pthread_mutex_unlock(&names_mu);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off, const size_t *global,
			      const size_t *local, cl_uint nwait, const cl_event *wait, cl_event *ev) {
	if (!next_enqueue) {
		next_enqueue = (enqueue_fn)dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
		if (!next_enqueue) {
			fprintf(stderr, "clcount: no clEnqueueNDRangeKernel after the shim: %s\n", dlerror());
			abort();
		}
	}
	__atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
	if (want_names < 0) {
		const char *e = getenv("CLCOUNT_NAMES");
		want_names = e && *e && strcmp(e, "0") != 0;
	}
	if (want_names)
		note(k);
	return next_enqueue(q, k, dim, off, global, local, nwait, wait, ev);
}
