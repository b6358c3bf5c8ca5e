package array

// RandomSumKernel exposes the fused generate-and-sum loop to benchmarks.
var RandomSumKernel = randomSum

// Ops lists the operations of the tasks that make a's chunks.
func Ops(a *Array) []string {
	l := newLowering()
	l.keys(a)
	var ops []string
	for _, t := range l.g.Tasks() {
		ops = append(ops, t.Op)
	}
	return ops
}
