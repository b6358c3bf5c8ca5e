// fakecuda.c is a stand-in for libcuda.so that the loader tests build with
// a C compiler: a driver without a GPU. cuInit reports
// CUDA_ERROR_NO_DEVICE (100); with -DMISSING_LAUNCH it also lacks
// cuLaunchKernel, as a driver too old for Dusk would.
typedef int CUresult;

static const char *no_device = "CUDA_ERROR_NO_DEVICE";

CUresult cuInit(unsigned flags) { return 100; }
CUresult cuGetErrorName(CUresult r, const char **name) {
	*name = no_device;
	return 0;
}
CUresult cuDeviceGetCount(int *n) { *n = 0; return 100; }
CUresult cuDeviceGet(int *d, int i) { return 100; }
CUresult cuDeviceGetName(char *s, int n, int d) { return 100; }
CUresult cuDeviceTotalMem_v2(unsigned long long *b, int d) { return 100; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { return 100; }
CUresult cuCtxSetCurrent(void *c) { return 100; }
CUresult cuCtxSynchronize(void) { return 100; }
CUresult cuModuleLoadData(void **m, const void *image) { return 100; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { return 100; }
CUresult cuMemAlloc_v2(unsigned long long *p, unsigned long long n) { return 100; }
CUresult cuMemFree_v2(unsigned long long p) { return 100; }
CUresult cuMemAllocHost_v2(void **p, unsigned long long n) { return 100; }
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, unsigned long long n) { return 100; }
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, unsigned long long n) { return 100; }
CUresult cuMemsetD8_v2(unsigned long long d, unsigned char v, unsigned long long n) { return 100; }
#ifndef MISSING_LAUNCH
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) { return 100; }
#endif
