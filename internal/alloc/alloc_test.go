package alloc

import "testing"

// TestNoZero checks the sizes given and that the memory is the caller's:
// written over whole, it reads back, and two allocations do not overlap.
func TestNoZero(t *testing.T) {
	for _, n := range []int{0, 1, 7, 4096, 1 << 20, 3<<20 + 5} {
		a, b := NoZero(n), NoZero(n)
		if len(a) != n || len(b) != n {
			t.Fatalf("%d: lengths %d, %d", n, len(a), len(b))
		}
		for i := range a {
			a[i], b[i] = byte(i), byte(i+1)
		}
		for i := range a {
			if a[i] != byte(i) || b[i] != byte(i+1) {
				t.Fatalf("%d: byte %d is %d, %d", n, i, a[i], b[i])
			}
		}
	}
	v := NoZeroOf[int64](1000)
	for i := range v {
		v[i] = int64(i) << 40
	}
	for i, x := range v {
		if x != int64(i)<<40 {
			t.Fatalf("value %d is %d", i, x)
		}
	}
}

// Zeros are zeros, shared, and known as such by AreZeros; other memory
// is not.
func TestZeros(t *testing.T) {
	for _, n := range []int{1, 7, 1 << 20, 9 << 20} {
		z := Zeros[int64](n)
		if len(z) != n || z[0] != 0 || z[n-1] != 0 {
			t.Fatalf("Zeros(%d): len %d, ends %d %d", n, len(z), z[0], z[n-1])
		}
		if !AreZeros(z) || !AreZeros(z[n/2:]) || !AreZeros(Zeros[int32](n)) {
			t.Errorf("Zeros(%d) not known as zeros", n)
		}
	}
	if AreZeros(make([]int32, 8)) || AreZeros([]int32{}) {
		t.Error("other memory taken for zeros")
	}
}
