package gpu

import _ "embed"

// ptx is the kernels of kernels/dusk.cu compiled to PTX by kernels/gen.sh;
// the driver compiles it for the GPU at hand when the module loads.
//
//go:embed kernels/dusk.ptx
var ptx string

// entries are the kernels device.go launches: each must be an entry of ptx.
var entries = []string{"cmp_f64", "cmp_i64", "arith_f64", "arith_i64", "sum_f64", "sum_i64",
	"group_i64", "fill_i64", "agg_f64", "agg_i64"}
