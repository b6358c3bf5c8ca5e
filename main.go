package dusk

import (
	"os"

	"github.com/duskdata/dusk/cmd/daemon"

	// The built-in operations, so that every worker can run them.
	_ "github.com/duskdata/dusk/array"
	_ "github.com/duskdata/dusk/bag"
	_ "github.com/duskdata/dusk/dataframe"
)

// Main runs the dusk command line (`dusk scheduler`, `dusk worker`) and
// exits. A program whose functions are registered with Register calls it to
// serve as a worker that can run them:
//
//	func main() { dusk.Main() } // then: ./myprog worker --scheduler host:8786
func Main() {
	os.Exit(daemon.Main(os.Args[1:], os.Stdout, os.Stderr))
}
