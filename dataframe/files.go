package dataframe

// DefaultPartitionSize is the size, in bytes of decoded data, up to which
// readers put the pieces of one datum (files, row groups) in one partition.
const DefaultPartitionSize = 128 << 20
