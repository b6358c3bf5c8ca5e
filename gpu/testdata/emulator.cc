// emulator.cc is a stand-in for libcuda.so that runs Dusk's kernels on the
// host: kernels/dusk.cu compiled as plain C++ (DUSK_HOST_EMULATION), with
// device memory in host memory. The tests build it to check the device
// code's host side — its driver calls, its parameter passing, its copies
// through the staging buffer, its group-by retries and compaction — and the
// kernels' arithmetic, against the reference, on machines without a GPU.
#include <stdlib.h>
#include <string.h>

#define DUSK_HOST_EMULATION
#include "../kernels/dusk.cu"

unsigned dusk_block, dusk_grid;

typedef int CUresult;
typedef void (*launcher)(void **params);

#define P(T, i) (*(T *)params[i])

// One launcher per kernel: each reads the parameters in dusk.cu's order.
static void l_cmp_f64(void **params) { cmp_f64(P(double *, 0), P(double, 1), P(int, 2), P(unsigned char *, 3), P(i64, 4)); }
static void l_cmp_i64(void **params) { cmp_i64(P(i64 *, 0), P(i64, 1), P(int, 2), P(unsigned char *, 3), P(i64, 4)); }
static void l_arith_f64(void **params) { arith_f64(P(double *, 0), P(double *, 1), P(double, 2), P(int, 3), P(double *, 4), P(i64, 5)); }
static void l_arith_i64(void **params) { arith_i64(P(i64 *, 0), P(i64 *, 1), P(i64, 2), P(int, 3), P(i64 *, 4), P(i64, 5)); }
static void l_sum_f64(void **params) { sum_f64(P(double *, 0), P(i64, 1), P(double *, 2)); }
static void l_sum_i64(void **params) { sum_i64(P(i64 *, 0), P(i64, 1), P(i64 *, 2)); }
static void l_group_i64(void **params) {
	group_i64(P(i64 *, 0), P(i64, 1), P(i64 *, 2), P(i64, 3), P(int *, 4), P(int *, 5), P(i64 *, 6));
}
static void l_fill_i64(void **params) { fill_i64(P(i64 *, 0), P(i64, 1), P(i64, 2)); }
static void l_agg_f64(void **params) {
	agg_f64(P(int *, 0), P(double *, 1), P(i64, 2), P(i64 *, 3), P(double *, 4), P(double *, 5), P(double *, 6));
}
static void l_agg_i64(void **params) {
	agg_i64(P(int *, 0), P(i64 *, 1), P(i64, 2), P(i64 *, 3), P(i64 *, 4), P(i64 *, 5), P(i64 *, 6));
}

static const struct {
	const char *name;
	launcher fn;
} kernels[] = {
	{"cmp_f64", l_cmp_f64}, {"cmp_i64", l_cmp_i64}, {"arith_f64", l_arith_f64}, {"arith_i64", l_arith_i64},
	{"sum_f64", l_sum_f64}, {"sum_i64", l_sum_i64}, {"group_i64", l_group_i64}, {"fill_i64", l_fill_i64},
	{"agg_f64", l_agg_f64}, {"agg_i64", l_agg_i64},
};

static int ctx_token, module_token;

extern "C" {
CUresult cuInit(unsigned) { return 0; }
CUresult cuGetErrorName(CUresult, const char **name) { *name = "CUDA_ERROR_EMULATED"; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return i == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char *s, int n, int) { strncpy(s, "Dusk host emulation", n); return 0; }
CUresult cuDeviceTotalMem_v2(unsigned long long *b, int) { *b = 1ull << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int) { *c = &ctx_token; return 0; }
CUresult cuCtxSetCurrent(void *c) { return c == &ctx_token ? 0 : 201; }
CUresult cuCtxSynchronize(void) { return 0; }
// The module must be PTX text: the emulator checks its header only.
CUresult cuModuleLoadData(void **m, const void *image) {
	if (!strstr((const char *)image, ".target sm_")) return 200;
	*m = &module_token;
	return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
	for (auto &k : kernels)
		if (m == &module_token && strcmp(k.name, name) == 0) {
			*f = (void *)k.fn;
			return 0;
		}
	return 500; // CUDA_ERROR_NOT_FOUND
}
CUresult cuMemAlloc_v2(unsigned long long *p, unsigned long long n) { *p = (unsigned long long)malloc(n); return *p ? 0 : 2; }
CUresult cuMemFree_v2(unsigned long long p) { free((void *)p); return 0; }
CUresult cuMemAllocHost_v2(void **p, unsigned long long n) { *p = malloc(n); return *p ? 0 : 2; }
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, unsigned long long n) { memcpy((void *)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, unsigned long long n) { memcpy(d, (void *)s, n); return 0; }
CUresult cuMemsetD8_v2(unsigned long long d, unsigned char v, unsigned long long n) { memset((void *)d, v, n); return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx != 256 || extra) return 1; // CUDA_ERROR_INVALID_VALUE
	dusk_grid = gx;
	for (dusk_block = 0; dusk_block < gx; dusk_block++) ((launcher)f)(params);
	return 0;
}
}
