package cluster

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The collector of a process that does Dusk's work and nothing else (dusk
// worker, dusk bench) lets garbage grow to gcMinHeadroom above the live
// heap, or the live heap itself while that is smaller: GOGC follows the
// live heap between gcMinPercent and gcMaxPercent. Partitions are Arrow
// buffers without pointers, so a collection costs little however large the
// heap; a heap grown past the live data costs memory and, as its fresh
// pages are first touched, page faults, which on a virtual machine cost
// more than the work (here about 3.5 s a GiB). A GOGC proportional to the
// live heap cannot serve both ends: 50 let a query's first run after
// persisting TPC-H SF10 (10 GB live) spend most of its time faulting in
// 5 GB (q1 17.3 s against 2.5 s now), and even 10 cost 1 GB of faults
// (q1 5.0–6.1 s; the 22 queries 37–40 s against 31 s now), while a small
// fixed GOGC made a process reading files with a small live heap collect
// all the time (SF10 from the files, q1 8.8 s at 10 against 4.0 s now).
const (
	gcMinPercent  = 1
	gcMaxPercent  = 100
	gcMinHeadroom = 256 << 20
	gcTuneEvery   = 100 * time.Millisecond
)

// gcPercentFor is the GOGC that leaves live bytes the headroom above.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(min(max(gcMinHeadroom*100/live, gcMinPercent), gcMaxPercent))
}

var tuneGC sync.Once

// TuneGC keeps the collector's GOGC at gcPercentFor the live heap in a
// process that is Dusk's own, unless the GOGC environment variable chose a
// setting. (A local cluster leaves the program's collector alone.)
func TuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	tuneGC.Do(func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		set := -1
		tune := func() {
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			if p := gcPercentFor(sample[0].Value.Uint64()); p != set {
				debug.SetGCPercent(p)
				set = p
			}
		}
		tune()
		go func() {
			for range time.Tick(gcTuneEvery) {
				tune()
			}
		}()
	})
}
