// Dusk's CUDA kernels. Each is launched by gpu/device.go with the
// parameters in the order given here; gen.sh compiles this file to
// dusk.ptx, which the gpu package embeds and loads through the driver.
// Every kernel strides over its n elements, so any grid size is correct.
#include "compat.h"

typedef long long i64;
typedef unsigned long long u64;

// The comparison and arithmetic operators, numbered as gpu.CmpOp and
// gpu.ArithOp number them.
enum { LT, LE, GT, GE, EQ, NE };
enum { ADD, SUB, MUL, DIV };

template <typename T> __device__ unsigned char compare(int op, T a, T b) {
	switch (op) {
	case LT: return a < b;
	case LE: return a <= b;
	case GT: return a > b;
	case GE: return a >= b;
	case EQ: return a == b;
	default: return a != b;
	}
}

template <typename T> __device__ T arith(int op, T a, T b) {
	switch (op) {
	case ADD: return a + b;
	case SUB: return a - b;
	case MUL: return a * b;
	default: return a / b; // int64 division is left to the CPU (division by zero)
	}
}

// cmp_*: out[i] = x[i] op scalar, as 0 or 1.
extern "C" __global__ void cmp_f64(const double *x, double scalar, int op, unsigned char *out, i64 n) {
	for (i64 i = TID; i < n; i += STRIDE) out[i] = compare(op, x[i], scalar);
}
extern "C" __global__ void cmp_i64(const i64 *x, i64 scalar, int op, unsigned char *out, i64 n) {
	for (i64 i = TID; i < n; i += STRIDE) out[i] = compare(op, x[i], scalar);
}

// arith_*: out[i] = a[i] op b[i], or a[i] op scalar where b is null.
extern "C" __global__ void arith_f64(const double *a, const double *b, double scalar, int op, double *out, i64 n) {
	for (i64 i = TID; i < n; i += STRIDE) out[i] = arith(op, a[i], b ? b[i] : scalar);
}
// In unsigned arithmetic, whose wrapping is defined and gives int64's bits
// for +, - and *; the host sends no division.
extern "C" __global__ void arith_i64(const i64 *a, const i64 *b, i64 scalar, int op, i64 *out, i64 n) {
	for (i64 i = TID; i < n; i += STRIDE) out[i] = (i64)arith(op, (u64)a[i], (u64)(b ? b[i] : scalar));
}

// sum_*: each block adds its share of x in shared memory and writes one
// partial sum per block; the host adds the partials. blockDim.x must be 256.
template <typename T> __device__ void sum_block(const T *x, i64 n, T *partial, T *acc) {
	T s = 0;
	for (i64 i = TID; i < n; i += STRIDE) s += x[i];
	acc[LANE] = s;
	SYNC();
	for (unsigned w = BLOCK / 2; w > 0; w /= 2) {
		if (LANE < w) acc[LANE] += acc[LANE + w];
		SYNC();
	}
	if (LANE == 0) partial[BLOCK_ID] = acc[0];
}
extern "C" __global__ void sum_f64(const double *x, i64 n, double *partial) {
	__shared__ double acc[256];
	sum_block(x, n, partial, acc);
}
extern "C" __global__ void sum_i64(const i64 *x, i64 n, i64 *partial) {
	__shared__ u64 acc[256]; // unsigned: wrapping is defined, and the same bits
	sum_block((const u64 *)x, n, (u64 *)partial, acc);
}

// EMPTY marks a free slot of the int64 key table: the bytes 0x80 that
// cuMemsetD8 fills it with. The host sends key columns that hold it to the
// CPU instead.
#define EMPTY ((i64)0x8080808080808080LL)

__device__ u64 mix(u64 k) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	return k ^ (k >> 33);
}

// group_i64: a hash table of size slots (a power of two, filled with EMPTY
// beforehand) gets every key, and slot[i] is the table slot of keys[i].
// *filled counts the keys inserted; past three quarters of the slots, the
// table is too full to probe quickly: *overflow is set, the threads stop,
// and the host retries with a larger table.
// Threads probing at once can fill the table past the mark before any
// sees the flag: a probe also stops at the flag, and after size slots.
extern "C" __global__ void group_i64(const i64 *keys, i64 n, i64 *table, i64 size, int *slot, int *overflow, i64 *filled) {
	for (i64 i = TID; i < n; i += STRIDE) {
		if (*(volatile int *)overflow) return;
		i64 k = keys[i];
		u64 s = mix((u64)k) & (u64)(size - 1);
		for (i64 probes = 0;; probes++) {
			if (probes == size || (probes > 0 && *(volatile int *)overflow)) {
				*(volatile int *)overflow = 1;
				return;
			}
			i64 prev = ATOMIC_CAS_I64(&table[s], EMPTY, k);
			if (prev == k) break;
			if (prev == EMPTY) {
				if (ATOMIC_ADD_I64(filled, 1) + 1 > size / 4 * 3) *(volatile int *)overflow = 1;
				break;
			}
			s = (s + 1) & (u64)(size - 1);
		}
		slot[i] = (int)s;
	}
}

// fill_i64 sets the n words at x to v (a float64's bits for float columns).
extern "C" __global__ void fill_i64(i64 *x, i64 v, i64 n) {
	for (i64 i = TID; i < n; i += STRIDE) x[i] = v;
}

// agg_*: per group g = group[i], count[g] += 1 and sum[g], min[g], max[g]
// take x[i]; a null pointer skips its aggregation, and x may be null when
// only counts are wanted. min and max start at +/-inf (or the int64 limits)
// through fill_i64. Float min and max compare-and-swap the bits.
__device__ void atomic_min_f64(double *p, double v) {
	i64 *q = (i64 *)p;
	i64 old = *q;
	while (v < __longlong_as_double(old)) {
		i64 prev = ATOMIC_CAS_I64(q, old, __double_as_longlong(v));
		if (prev == old) break;
		old = prev;
	}
}
__device__ void atomic_max_f64(double *p, double v) {
	i64 *q = (i64 *)p;
	i64 old = *q;
	while (v > __longlong_as_double(old)) {
		i64 prev = ATOMIC_CAS_I64(q, old, __double_as_longlong(v));
		if (prev == old) break;
		old = prev;
	}
}

extern "C" __global__ void agg_f64(const int *group, const double *x, i64 n, i64 *count, double *sum, double *mn, double *mx) {
	for (i64 i = TID; i < n; i += STRIDE) {
		int g = group[i];
		double v = x ? x[i] : 0;
		if (count) ATOMIC_ADD_I64(&count[g], 1);
		if (sum) ATOMIC_ADD_F64(&sum[g], v);
		if (mn) atomic_min_f64(&mn[g], v);
		if (mx) atomic_max_f64(&mx[g], v);
	}
}
extern "C" __global__ void agg_i64(const int *group, const i64 *x, i64 n, i64 *count, i64 *sum, i64 *mn, i64 *mx) {
	for (i64 i = TID; i < n; i += STRIDE) {
		int g = group[i];
		i64 v = x ? x[i] : 0;
		if (count) ATOMIC_ADD_I64(&count[g], 1);
		if (sum) ATOMIC_ADD_I64(&sum[g], v);
		if (mn) ATOMIC_MIN_I64(&mn[g], v);
		if (mx) ATOMIC_MAX_I64(&mx[g], v);
	}
}
