package array

// RandomSumKernel exposes the fused generate-and-sum loop to benchmarks.
var RandomSumKernel = randomSum
