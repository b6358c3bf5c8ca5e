package gpu

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duskdata/dusk/internal/gpuemu"
)

// TestPTXEntries checks that the embedded PTX defines every kernel the
// device launches, for the architecture gen.sh names.
func TestPTXEntries(t *testing.T) {
	if !strings.Contains(ptx, ".target sm_70") {
		t.Errorf("dusk.ptx does not target sm_70")
	}
	for _, e := range entries {
		if !strings.Contains(ptx, ".visible .entry "+e+"(") {
			t.Errorf("dusk.ptx lacks the kernel %s", e)
		}
	}
}

// TestPTXUpToDate rebuilds the PTX from dusk.cu with gen.sh and checks it
// matches the committed file, where nvcc or clang is installed.
func TestPTXUpToDate(t *testing.T) {
	found := false
	for _, c := range []string{"nvcc", "clang", "clang-14"} {
		if _, err := exec.LookPath(c); err == nil {
			found = true
		}
	}
	if !found {
		t.Skip("neither nvcc nor clang is installed: gen.sh cannot run")
	}
	out, err := exec.Command("bash", "kernels/gen.sh", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("gen.sh --check: %v\n%s", err, out)
	}
}

// fakeDriver builds testdata/fakecuda.c into a shared library, with the
// given compiler flags.
func fakeDriver(t *testing.T, flags ...string) string {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			t.Skip("no C compiler to build a stand-in driver library")
		}
	}
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	args := append([]string{"-shared", "-fPIC", "-o", lib, "testdata/fakecuda.c"}, flags...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("build the stand-in driver: %v\n%s", err, out)
	}
	return lib
}

// TestLoaderFailsCleanly opens the GPU through driver libraries that
// cannot run Dusk's kernels, and checks that each failure is an error
// that says why, never a panic.
func TestLoaderFailsCleanly(t *testing.T) {
	for _, tc := range []struct {
		name string
		lib  func(t *testing.T) string
		want string
	}{
		{"no library", func(t *testing.T) string { return filepath.Join(t.TempDir(), "libcuda.so.1") },
			"gpu: no NVIDIA driver: "},
		{"no device", func(t *testing.T) string { return fakeDriver(t) },
			"gpu: cuInit: CUDA_ERROR_NO_DEVICE (no usable GPU)"},
		{"old driver", func(t *testing.T) string { return fakeDriver(t, "-DMISSING_LAUNCH") },
			"gpu: the NVIDIA driver library lacks cuLaunchKernel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(LibraryEnv, tc.lib(t))
			d, err := Open(0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v, %v; want an error with %q", d, err, tc.want)
			}
			if n := Count(); n != 0 {
				t.Errorf("Count: %d, want 0", n)
			}
		})
	}
}

// TestReference checks the reference kernels on small known answers.
func TestReference(t *testing.T) {
	var r Reference
	out := make([]uint8, 4)
	for _, tc := range []struct {
		op   CmpOp
		want []uint8
	}{
		{Less, []uint8{1, 0, 0, 0}}, {LessEqual, []uint8{1, 1, 0, 0}}, {Greater, []uint8{0, 0, 1, 1}},
		{GreaterEqual, []uint8{0, 1, 1, 1}}, {Equal, []uint8{0, 1, 0, 0}}, {NotEqual, []uint8{1, 0, 1, 1}},
	} {
		if err := r.CompareInt64([]int64{1, 2, 3, 4}, tc.op, 2, out); err != nil || !slices.Equal(out, tc.want) {
			t.Errorf("CompareInt64 op %d: %v, %v; want %v", tc.op, out, err, tc.want)
		}
		if err := r.CompareFloat64([]float64{1, 2, 3, math.Inf(1)}, tc.op, 2, out); err != nil || !slices.Equal(out, tc.want) {
			t.Errorf("CompareFloat64 op %d: %v, %v; want %v", tc.op, out, err, tc.want)
		}
	}
	f := make([]float64, 3)
	if err := r.ArithFloat64([]float64{1, 2, 3}, nil, 2, Div, f); err != nil || !slices.Equal(f, []float64{0.5, 1, 1.5}) {
		t.Errorf("ArithFloat64 / 2: %v, %v", f, err)
	}
	i := make([]int64, 3)
	if err := r.ArithInt64([]int64{1, 2, 3}, []int64{4, 5, 6}, 0, Mul, i); err != nil || !slices.Equal(i, []int64{4, 10, 18}) {
		t.Errorf("ArithInt64 *: %v, %v", i, err)
	}
	if err := r.ArithInt64([]int64{1}, nil, 0, Div, i[:1]); err != ErrUnsupported {
		t.Errorf("ArithInt64 /: %v, want ErrUnsupported", err)
	}
	res, err := r.GroupBy(GroupBy{Keys: []int64{5, 7, 5, 9}, Cols: []AggColumn{{F64: []float64{1, 2, 3, 4}, Sum: true, Min: true, Max: true}}})
	if err != nil || !slices.Equal(res.Keys, []int64{5, 7, 9}) || !slices.Equal(res.Count, []int64{2, 1, 1}) ||
		!slices.Equal(res.Cols[0].SumF, []float64{4, 2, 4}) || !slices.Equal(res.Cols[0].MinF, []float64{1, 2, 4}) ||
		!slices.Equal(res.Cols[0].MaxF, []float64{3, 2, 4}) {
		t.Errorf("GroupBy by int keys: %+v, %v", res, err)
	}
	if _, err := r.GroupBy(GroupBy{Codes: []int32{0, 3}, NCodes: 3}); err == nil || !strings.Contains(err.Error(), "row 1: code 3 outside 0..2") {
		t.Errorf("GroupBy with a bad code: %v", err)
	}
	if _, err := r.GroupBy(GroupBy{Keys: []int64{1}, Cols: []AggColumn{{I64: []int64{1, 2}}}}); err == nil {
		t.Errorf("GroupBy with a column longer than the keys: no error")
	}
}

// TestDeviceMatchesReference runs every kernel on the GPU and on the
// reference (matchReference). It runs only where a GPU is present.
func TestDeviceMatchesReference(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	matchReference(t, d)
}

// TestEmulatedDevice runs the device code through the host emulator
// (testdata/emulator.cc: dusk.cu compiled for the CPU behind a stand-in
// driver), with a small staging buffer so that every copy takes several
// rounds, and checks it against the reference as TestDeviceMatchesReference
// does on a GPU.
func TestEmulatedDevice(t *testing.T) {
	lib := gpuemu.Build(t)
	t.Setenv(LibraryEnv, lib)
	old := stageBytes
	stageBytes = 1 << 20
	defer func() { stageBytes = old }()
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	matchReference(t, d)
	if st := d.Stats(); st.BytesIn == 0 || st.BytesOut == 0 || st.KernelsLaunch == 0 {
		t.Errorf("stats count nothing: %+v", st)
	}
}

// matchReference runs every kernel on d and on the reference with fresh
// random data: float sums agree to a relative 1e-9, everything else
// exactly.
func matchReference(t *testing.T, d *Device) {
	t.Logf("device: %s, %d MiB", d.Name(), d.Memory()>>20)
	var ref Reference
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	const n = 1_000_003
	fa, fb := make([]float64, n), make([]float64, n)
	ia, ib := make([]int64, n), make([]int64, n)
	keys, wide, codes := make([]int64, n), make([]int64, n), make([]int32, n)
	for i := range n {
		fa[i], fb[i] = r.NormFloat64()*1e3+10, r.Float64()+0.5 // fa sums far from 0: its relative error is meaningful
		ia[i], ib[i] = r.Int64N(1<<40)-1<<39, r.Int64N(1000)-500
		keys[i], codes[i] = r.Int64N(5000)-2500, int32(r.IntN(300))
		wide[i] = r.Int64() // more distinct keys than the first hash table holds
	}
	for op := Less; op <= NotEqual; op++ {
		got, want := make([]uint8, n), make([]uint8, n)
		check(t, "CompareFloat64", d.CompareFloat64(fa, op, 12.5, got), ref.CompareFloat64(fa, op, 12.5, want))
		if !slices.Equal(got, want) {
			t.Errorf("CompareFloat64 op %d differs", op)
		}
		check(t, "CompareInt64", d.CompareInt64(ib, op, 7, got), ref.CompareInt64(ib, op, 7, want))
		if !slices.Equal(got, want) {
			t.Errorf("CompareInt64 op %d differs", op)
		}
	}
	for op := Add; op <= Div; op++ {
		got, want := make([]float64, n), make([]float64, n)
		for _, b := range [][]float64{fb, nil} {
			check(t, "ArithFloat64", d.ArithFloat64(fa, b, 3.25, op, got), ref.ArithFloat64(fa, b, 3.25, op, want))
			if !slices.Equal(got, want) {
				t.Errorf("ArithFloat64 op %d (column %v) differs", op, b != nil)
			}
		}
		if op == Div {
			continue
		}
		gi, wi := make([]int64, n), make([]int64, n)
		check(t, "ArithInt64", d.ArithInt64(ia, ib, 0, op, gi), ref.ArithInt64(ia, ib, 0, op, wi))
		if !slices.Equal(gi, wi) {
			t.Errorf("ArithInt64 op %d differs", op)
		}
	}
	gs, err1 := d.SumFloat64(fa)
	ws, err2 := ref.SumFloat64(fa)
	check(t, "SumFloat64", err1, err2)
	if math.Abs(gs-ws) > 1e-9*math.Abs(ws) {
		t.Errorf("SumFloat64: %v, reference %v", gs, ws)
	}
	gi, err1 := d.SumInt64(ia)
	wi, err2 := ref.SumInt64(ia)
	check(t, "SumInt64", err1, err2)
	if gi != wi {
		t.Errorf("SumInt64: %d, reference %d", gi, wi)
	}
	cols := []AggColumn{{F64: fa, Sum: true, Min: true, Max: true}, {I64: ia, Sum: true, Min: true, Max: true}}
	for _, q := range []GroupBy{{Keys: keys, Cols: cols}, {Codes: codes, NCodes: 300, Cols: cols}, {Keys: keys}, {Keys: wide, Cols: cols[:1]}} {
		got, err1 := d.GroupBy(q)
		want, err2 := ref.GroupBy(q)
		check(t, "GroupBy", err1, err2)
		compareGroups(t, got, want)
	}
}

func check(t *testing.T, what string, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// compareGroups matches two results' groups by key or code: counts, int
// aggregates and extremes exactly, float sums to a relative 1e-9.
func compareGroups(t *testing.T, got, want GroupResult) {
	t.Helper()
	key := func(r GroupResult, i int) int64 {
		if r.Keys != nil {
			return r.Keys[i]
		}
		return int64(r.Codes[i])
	}
	at := map[int64]int{}
	for i := range want.Count {
		at[key(want, i)] = i
	}
	if len(got.Count) != len(want.Count) {
		t.Fatalf("%d groups, reference %d", len(got.Count), len(want.Count))
	}
	for i := range got.Count {
		j, ok := at[key(got, i)]
		if !ok {
			t.Fatalf("group %d is not the reference's", key(got, i))
		}
		if got.Count[i] != want.Count[j] {
			t.Errorf("group %d: count %d, reference %d", key(got, i), got.Count[i], want.Count[j])
		}
		for c := range want.Cols {
			g, w := got.Cols[c], want.Cols[c]
			if w.SumF != nil && math.Abs(g.SumF[i]-w.SumF[j]) > 1e-9*math.Max(1, math.Abs(w.SumF[j])) ||
				w.MinF != nil && g.MinF[i] != w.MinF[j] || w.MaxF != nil && g.MaxF[i] != w.MaxF[j] ||
				w.SumI != nil && g.SumI[i] != w.SumI[j] || w.MinI != nil && g.MinI[i] != w.MinI[j] ||
				w.MaxI != nil && g.MaxI[i] != w.MaxI[j] {
				t.Errorf("group %d column %d differs from the reference", key(got, i), c)
			}
		}
	}
}
