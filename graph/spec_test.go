package graph

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// randomTask draws a task with every field a spec carries, chains nested
// depth levels deep.
func randomTask(rng *rand.Rand, depth int) *Task {
	str := func() string {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	}
	t := &Task{Key: Key("k-" + strconv.Itoa(rng.IntN(1e6)) + str()), Op: str()}
	if rng.IntN(4) == 0 {
		t.Op = FusedOp
	}
	if rng.IntN(2) == 0 {
		t.Args = []byte("a" + str())
	}
	for range rng.IntN(5) {
		t.Inputs = append(t.Inputs, Key(str()))
	}
	if rng.IntN(3) == 0 {
		t.Resources = Resources{}
		for range 1 + rng.IntN(3) {
			t.Resources[str()] = rng.NormFloat64()
		}
	}
	if rng.IntN(3) == 0 {
		sh := &Shuffle{ID: str(), Role: ShuffleRole(1 + rng.IntN(3)), Outputs: rng.IntN(1000), Side: rng.IntN(2),
			Source: rng.IntN(1 << 20), Part: rng.IntN(300), Merge: str()}
		for range rng.IntN(3) {
			sh.Sources = append(sh.Sources, rng.IntN(1<<30))
		}
		if rng.IntN(2) == 0 {
			sh.MergeArgs = []byte("m" + str())
		}
		t.Shuffle = sh
	}
	for range rng.IntN(3) {
		t.Needs = append(t.Needs, "bag:"+str())
	}
	if depth > 0 && rng.IntN(3) == 0 {
		for range 1 + rng.IntN(3) {
			t.Chain = append(t.Chain, randomTask(rng, depth-1))
		}
	}
	return t
}

func TestSpecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		want := randomTask(rng, 2)
		s := want.Spec()
		if _, err := ParseSpec([]byte(s)); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		got, err := s.Task()
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("task %d:\n got %#v\nwant %#v", i, got, want)
		}
		if s.NumInputs() != len(want.Inputs) {
			t.Fatalf("task %d: %d inputs, want %d", i, s.NumInputs(), len(want.Inputs))
		}
		if s.Key() != want.Key {
			t.Fatalf("task %d: key %q, want %q", i, s.Key(), want.Key)
		}
		var ins []Key
		s.Inputs(func(k Key) { ins = append(ins, k) })
		if !reflect.DeepEqual(ins, want.Inputs) {
			t.Fatalf("task %d: inputs %q, want %q", i, ins, want.Inputs)
		}
		var ops, wantOps []string
		s.Ops(func(op string) { ops = append(ops, op) })
		var walk func(t *Task)
		walk = func(t *Task) {
			if t.Op != FusedOp {
				wantOps = append(wantOps, t.Op)
			}
			wantOps = append(wantOps, t.Needs...)
			if t.Op != FusedOp {
				return
			}
			for _, c := range t.Chain {
				walk(c)
			}
		}
		walk(want)
		if !reflect.DeepEqual(ops, wantOps) {
			t.Fatalf("task %d: ops %q, want %q", i, ops, wantOps)
		}
		res, sh, err := s.Head()
		if err != nil || !reflect.DeepEqual(res, want.Resources) || !reflect.DeepEqual(sh, want.Shuffle) {
			t.Fatalf("task %d: head %v %v %v", i, res, sh, err)
		}
	}
}

// Every cut and every changed byte of a spec is refused or decodes to
// some task: never a panic, never a huge allocation.
func TestSpecDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		s := []byte(randomTask(rng, 1).Spec())
		for cut := range len(s) {
			if _, err := ParseSpec(s[:cut]); err == nil {
				t.Fatalf("task %d cut at %d of %d: accepted", i, cut, len(s))
			}
		}
		for range 20 {
			d := append([]byte(nil), s...)
			d[rng.IntN(len(d))] = byte(rng.IntN(256))
			if p, err := ParseSpec(d); err == nil {
				if _, err := p.Task(); err != nil {
					t.Fatalf("task %d: parsed, then failed to decode: %v", i, err)
				}
			}
		}
	}
}

func FuzzSpec(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 8 {
		f.Add([]byte(randomTask(rng, 1).Spec()))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSpec(b)
		if err != nil {
			return
		}
		task, err := s.Task()
		if err != nil {
			t.Fatalf("parsed, then failed to decode: %v", err)
		}
		s.Key()
		s.Inputs(func(Key) {})
		if _, _, err := s.Head(); err != nil {
			t.Fatal(err)
		}
		// Encoding is canonical: what an encoding decodes to encodes the same.
		again := task.Spec()
		t2, err := again.Task()
		if err != nil || t2.Spec() != again {
			t.Fatalf("re-encoded task differs: %v", err)
		}
	})
}

// Ops reads a spec in place: the scheduler asks it for every worker it
// weighs for a task in a pool of several binaries.
func TestOpsAllocateNothing(t *testing.T) {
	s := (&Task{Key: "k", Op: "op", Needs: []string{"bag:f"}, Resources: Resources{"GPU": 1},
		Shuffle: &Shuffle{ID: "s", Role: Transfer, Sources: []int{1}}}).Spec()
	if n := testing.AllocsPerRun(100, func() { s.Ops(func(string) {}) }); n != 0 {
		t.Fatalf("Ops allocates %v times a call", n)
	}
}
