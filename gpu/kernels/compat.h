// compat.h lets dusk.cu compile with nvcc or with clang alone: clang's CUDA
// mode without the CUDA headers (-nocudainc) lacks the built-in names that
// nvcc provides, so they are defined here from clang's NVVM builtins.
// DUSK_HOST_EMULATION compiles the kernels as plain C++ for the tests'
// stand-in driver (testdata/emulator.cc), which runs each block as one
// thread, one block after another: the kernels' loops stride over every
// element, so they compute the same results.
#pragma once

#if defined(DUSK_HOST_EMULATION)
#include <string.h>
extern unsigned dusk_block, dusk_grid;
#define __global__
#define __device__
#define __shared__
#define TID dusk_block
#define STRIDE dusk_grid
#define LANE 0u
#define BLOCK 1u
#define BLOCK_ID dusk_block
#define SYNC()
template <typename T, typename V> static T host_add(T *p, V v) { T old = *p; *p = old + (T)v; return old; }
template <typename T, typename V> static T host_min(T *p, V v) { T old = *p; if ((T)v < old) *p = (T)v; return old; }
template <typename T, typename V> static T host_max(T *p, V v) { T old = *p; if ((T)v > old) *p = (T)v; return old; }
template <typename T> static T host_cas(T *p, T old, T v) { T cur = *p; if (cur == old) *p = v; return cur; }
#define ATOMIC_ADD_F64(p, v) host_add((p), (v))
#define ATOMIC_ADD_I64(p, v) host_add((long long *)(p), (v))
#define ATOMIC_MIN_I64(p, v) host_min((long long *)(p), (v))
#define ATOMIC_MAX_I64(p, v) host_max((long long *)(p), (v))
#define ATOMIC_CAS_I64(p, old, v) host_cas((long long *)(p), (long long)(old), (long long)(v))
static double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
static long long __double_as_longlong(double x) { long long l; memcpy(&l, &x, 8); return l; }
#elif defined(__NVCC__)
#define TID (blockIdx.x * blockDim.x + threadIdx.x)
#define STRIDE (gridDim.x * blockDim.x)
#define LANE threadIdx.x
#define BLOCK blockDim.x
#define BLOCK_ID blockIdx.x
#define SYNC() __syncthreads()
#define ATOMIC_ADD_F64(p, v) atomicAdd((p), (v))
#define ATOMIC_ADD_I64(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#define ATOMIC_MIN_I64(p, v) atomicMin((long long *)(p), (long long)(v))
#define ATOMIC_MAX_I64(p, v) atomicMax((long long *)(p), (long long)(v))
#define ATOMIC_CAS_I64(p, old, v) \
	(long long)atomicCAS((unsigned long long *)(p), (unsigned long long)(old), (unsigned long long)(v))
#else
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define TID (__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x())
#define STRIDE (__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x())
#define LANE __nvvm_read_ptx_sreg_tid_x()
#define BLOCK __nvvm_read_ptx_sreg_ntid_x()
#define BLOCK_ID __nvvm_read_ptx_sreg_ctaid_x()
#define SYNC() __syncthreads()
#define ATOMIC_ADD_F64(p, v) __nvvm_atom_add_gen_d((p), (v))
#define ATOMIC_ADD_I64(p, v) __nvvm_atom_add_gen_ll((long long *)(p), (long long)(v))
#define ATOMIC_MIN_I64(p, v) __nvvm_atom_min_gen_ll((long long *)(p), (long long)(v))
#define ATOMIC_MAX_I64(p, v) __nvvm_atom_max_gen_ll((long long *)(p), (long long)(v))
#define ATOMIC_CAS_I64(p, old, v) __nvvm_atom_cas_gen_ll((long long *)(p), (long long)(old), (long long)(v))
#define __longlong_as_double(x) __nvvm_bitcast_ll2d(x)
#define __double_as_longlong(x) __nvvm_bitcast_d2ll(x)
#endif
