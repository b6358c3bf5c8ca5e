package bag_test

import (
	"testing"

	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/internal/registry"
)

// regOnly and regNum are element types no other test builds a bag of, so
// that their operations are registered by RegisterType alone.
type (
	regOnly struct{ A int }
	regNum  int16
)

func registered(t *testing.T, want bool, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := registry.Lookup(n); (err == nil) != want {
			t.Errorf("%s registered: %v, want %v", n, err == nil, want)
		}
	}
}

func TestRegisterType(t *testing.T) {
	anyOps := []string{
		"bag-from-sequence:bag_test.regOnly",
		"bag-read-json:bag_test.regOnly",
		"bag-count:bag_test.regOnly-partial",
		"bag-count:bag_test.regOnly-combine",
		"bag-repartition:bag_test.regOnly",
	}
	comparableOps := []string{"bag-frequencies:bag_test.regOnly-partial", "bag-distinct:bag_test.regOnly-combine"}
	registered(t, false, anyOps...)
	bag.RegisterType[regOnly]()
	bag.RegisterType[regOnly]() // idempotent: no panic, nothing changes
	registered(t, true, anyOps...)
	registered(t, false, comparableOps...)
	bag.RegisterComparable[regOnly]()
	bag.RegisterComparable[regOnly]()
	registered(t, true, comparableOps...)

	numOps := []string{
		"bag-sum:bag_test.regNum-partial", "bag-mean:bag_test.regNum-combine",
		"bag-min:bag_test.regNum-partial", "bag-max:bag_test.regNum-partial",
		"bag-topk:bag_test.regNum-partial", "bag-frequencies:bag_test.regNum-partial",
		"bag-from-sequence:bag_test.regNum",
	}
	registered(t, false, numOps...)
	bag.RegisterNumber[regNum]()
	bag.RegisterNumber[regNum]()
	registered(t, true, numOps...)

	// Predeclared types get what their constraints allow from RegisterType.
	bag.RegisterType[uint16]()
	bag.RegisterType[uint16]()
	registered(t, true, "bag-sum:uint16-partial", "bag-topk:uint16-combine", "bag-distinct:uint16-partial")
	bag.RegisterType[bool]()
	registered(t, true, "bag-frequencies:bool-partial")

	// Bags built after registration use the same operations.
	ctx := newClient(t)
	n, err := bag.Sum(bag.FromSequence([]regNum{1, 2, 3}, 2)).Compute(ctx)
	if err != nil || n != 6 {
		t.Fatalf("sum = %d, %v; want 6", n, err)
	}
}
