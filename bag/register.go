package bag

import "cmp"

// RegisterType registers the built-in operations typed by the element type
// T that every T has (FromSequence, FromPartitions, ReadJSON, Count,
// Repartition), and, for the predeclared types (int, float64, string...),
// those its constraints allow too, as RegisterNumber, RegisterOrdered or
// RegisterComparable would. A binary that runs workers and never builds a
// bag of T calls it at init, for each T its programs use; the local cluster
// needs none. Calling it again does nothing.
func RegisterType[T any]() {
	registerAny[T]()
	switch any(*new(T)).(type) {
	case int:
		RegisterNumber[int]()
	case int8:
		RegisterNumber[int8]()
	case int16:
		RegisterNumber[int16]()
	case int32:
		RegisterNumber[int32]()
	case int64:
		RegisterNumber[int64]()
	case uint:
		RegisterNumber[uint]()
	case uint8:
		RegisterNumber[uint8]()
	case uint16:
		RegisterNumber[uint16]()
	case uint32:
		RegisterNumber[uint32]()
	case uint64:
		RegisterNumber[uint64]()
	case float32:
		RegisterNumber[float32]()
	case float64:
		RegisterNumber[float64]()
	case string:
		RegisterOrdered[string]()
	case bool:
		RegisterComparable[bool]()
	}
}

// RegisterComparable is RegisterType for a comparable type, with
// Frequencies and Distinct.
func RegisterComparable[T comparable]() {
	registerAny[T]()
	empty := FromPartitions[T](nil)
	_ = Frequencies(empty)
	_ = Distinct(empty)
}

// RegisterOrdered is RegisterComparable for an ordered type, with Min, Max
// and TopK.
func RegisterOrdered[T cmp.Ordered]() {
	RegisterComparable[T]()
	empty := FromPartitions[T](nil)
	_ = Min(empty)
	_ = Max(empty)
	_ = TopK(empty, 1)
}

// RegisterNumber is RegisterOrdered for a number type, with Sum and Mean.
func RegisterNumber[T Number]() {
	RegisterOrdered[T]()
	empty := FromPartitions[T](nil)
	_ = Sum(empty)
	_ = Mean(empty)
}

// registerAny registers what every T has by building those operations on a
// bag without partitions, as a program would: the registrations are the
// same ones, made the same way (ensureOp does nothing the second time).
func registerAny[T any]() {
	empty := FromPartitions[T](nil)
	_ = empty.Count()
	_ = Repartition(empty, 1)
	readJSONOp[T]()
}
