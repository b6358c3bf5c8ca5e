// Command dusk runs the processes of a Dusk cluster: a scheduler, and
// workers that join it. See `dusk -h`.
package main

import "github.com/duskdata/dusk"

func main() { dusk.Main() }
