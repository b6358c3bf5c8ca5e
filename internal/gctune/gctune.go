// Package gctune keeps the Go collector's GOGC following the live heap in
// a process that is Dusk's own (a worker, a scheduler, a benchmark), by
// one of two policies: data by the gigabyte, or task records.
//
// Must never import: anything of Dusk.
package gctune

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The collector of a process that does Dusk's work and nothing else (dusk
// worker, dusk bench) lets garbage grow to a headroom above the live heap
// (DataGC: 256 MiB), or four times the live heap while that is smaller,
// and never less than a floor of it (4%): GOGC follows the live heap
// between the floor and gcMaxPercent. The cap was the live heap itself
// (GOGC 100) until 2026-12-06: a worker reading TPC-H SF1 from its files
// holds a live heap of tens of MB, so it collected every few tens of MB
// allocated, and three worker processes on loopback took 2.8–3.0 s for the
// 22 queries against 2.5–2.5 s with 400 (the local cluster 2.3 → 2.1 s;
// its peak memory 264 → 420–470 MB). A worker's memory limit bounds the
// heap whatever GOGC says (Go's soft limit). A heap grown past the live data costs memory and, as its
// fresh pages are first touched, page faults, which on a virtual machine
// cost more than the work (here about 3.5 s a GiB). A GOGC proportional to
// the live heap cannot serve both ends: 50 let a query's first run after
// persisting TPC-H SF10 (10 GB live) spend most of its time faulting in
// 5 GB (q1 17.3 s against 2.5 s with 256 MiB), and even 10 cost 1 GB of
// faults (q1 5.0–6.1 s; the 22 queries 37–40 s against 31 s), while a
// small fixed GOGC made a process reading files with a small live heap
// collect all the time (SF10 from the files, q1 8.8 s at 10 against 4.0 s).
// But with a fixed headroom each collection's cost (sweeping every span of
// the heap) grows with the heap while their number grows with what is
// allocated, a cost that grows as the square of the data: with 13 GB live,
// 1% (130 MiB) collected 130 times in each run of db-benchmark's q10 at
// 1e8 rows, 16–17 s; 4% took 11–12 s.
//
// A scheduler's heap is the other kind: small records, a few hundred bytes
// a task, full of pointers, that it holds while a graph runs, and nothing
// that faults in by the gigabyte. There the headroom is the memory a
// million tasks cost beyond their records (issue 52 asks 500 bytes a task):
// with 256 MiB of headroom over 390 MB live, `dusk bench tasks --tasks 1e6`
// peaked at 0.79 GB (766 bytes a task) in 8.7 s; a quarter of the live heap
// peaked at 0.60 GB in 9.6 s.
type Policy struct {
	MinHeadroom uint64 // bytes of garbage allowed above the live heap, at least
	MinPercent  int    // GOGC's floor, whatever the heap
}

var (
	// DataGC is a worker's and a benchmark's: data by the gigabyte.
	DataGC = Policy{MinHeadroom: 256 << 20, MinPercent: 4}
	// SchedulerGC is a scheduler's: task records.
	SchedulerGC = Policy{MinHeadroom: 32 << 20, MinPercent: 25}
)

const (
	gcMaxPercent = 400
	gcTuneEvery  = 100 * time.Millisecond
)

// percentFor is the GOGC that leaves live bytes the headroom above,
// rounded up.
func (p Policy) percentFor(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(min(max((p.MinHeadroom*100+live-1)/live, uint64(p.MinPercent)), gcMaxPercent))
}

var tuneGC sync.Once

// Tune keeps the collector's GOGC at p's percentFor the live heap in a
// process that is Dusk's own, unless the GOGC environment variable chose a
// setting. (A local cluster leaves the program's collector alone.)
func Tune(p Policy) {
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
			if pc := p.percentFor(sample[0].Value.Uint64()); pc != set {
				debug.SetGCPercent(pc)
				set = pc
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
