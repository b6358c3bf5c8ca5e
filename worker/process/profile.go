package process

// Profiles for performance reports: the scheduler relays a client's start
// and stop to every worker and gathers their profiles; a worker profiles
// its process with Go's CPU profiler.

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"sync"

	"github.com/duskdata/dusk/internal/protocol"
)

// cpuProfile is this process's CPU profile, which Go keeps one of: the
// first worker told to start owns it; others in the process share it.
var cpuProfile struct {
	sync.Mutex
	owner *Worker
	buf   bytes.Buffer
}

// profileState is a worker's side: why its profile is not its own.
type profileState struct {
	mu  sync.Mutex
	why string // "" while it owns the process's profile or has none
}

// startProfile starts profiling the process, unless another worker of it
// does.
func (w *Worker) startProfile() {
	cpuProfile.Lock()
	defer cpuProfile.Unlock()
	w.prof.mu.Lock()
	defer w.prof.mu.Unlock()
	switch {
	case cpuProfile.owner == w:
	case cpuProfile.owner != nil:
		w.prof.why = fmt.Sprintf("shares its process's profile with worker %s", cpuProfile.owner.id)
	default:
		cpuProfile.buf.Reset()
		if err := pprof.StartCPUProfile(&cpuProfile.buf); err != nil {
			w.prof.why = fmt.Sprintf("cannot profile: %v", err)
			return
		}
		cpuProfile.owner, w.prof.why = w, ""
	}
}

// stopProfile stops the profile this worker owns, reports the worker's
// metrics (its last transfers and spills), then sends the profile.
func (w *Worker) stopProfile(id uint64) {
	data := &protocol.ProfileData{ID: id, Worker: w.id}
	cpuProfile.Lock()
	w.prof.mu.Lock()
	if cpuProfile.owner == w {
		pprof.StopCPUProfile()
		data.Data = bytes.Clone(cpuProfile.buf.Bytes())
		cpuProfile.owner = nil
	} else if data.Err = w.prof.why; data.Err == "" {
		data.Err = "no profile was started"
	}
	w.prof.why = ""
	w.prof.mu.Unlock()
	cpuProfile.Unlock()
	w.report(w.readMemory())
	w.enqueue(data)
}
