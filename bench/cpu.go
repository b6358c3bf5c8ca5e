package bench

import (
	"time"
)

// cpuSampleEvery is the interval a step's processor use is sampled at.
const cpuSampleEvery = 100 * time.Millisecond

// cpuMeter samples the processor time this process spends while a step
// runs: the cores the step kept busy on average; the share of its sampled
// intervals in which it kept busy less than all of the machine's cores but
// half a core, which shows a stage that runs on one thread while the others
// wait; and the share spent in the kernel, which on a virtual machine is
// mostly the faults of memory touched for the first time. It sees a local cluster's workers, which run in this
// process, and nothing of a remote cluster's.
type cpuMeter struct {
	cores int // the machine's
	stop  chan struct{}
	done  chan CPUUse
}

// CPUUse is what a cpuMeter measured.
type CPUUse struct {
	Cores  float64 `json:"cores"`  // processor seconds per second
	Short  float64 `json:"short"`  // share of intervals with under cores-0.5 busy
	System float64 `json:"system"` // share of the processor time spent in the kernel (page faults, I/O)
}

// processCPU is the processor time this process has spent, user and system.
func processCPU() time.Duration {
	user, system := processTimes()
	return user + system
}

// startCPU starts measuring for a step on a machine of cores cores; a nil
// meter (no cores, or no processor time to read here) measures nothing.
func startCPU(cores int) *cpuMeter {
	if cores <= 0 || processCPU() == 0 {
		return nil
	}
	m := &cpuMeter{cores: cores, stop: make(chan struct{}), done: make(chan CPUUse, 1)}
	go m.sample()
	return m
}

func (m *cpuMeter) sample() {
	tick := time.NewTicker(cpuSampleEvery)
	defer tick.Stop()
	_, sys0 := processTimes()
	start, cpu0 := time.Now(), processCPU()
	last, lastCPU := start, cpu0
	var intervals, short int
	// interval ends the interval since last: the last one, cut short by the
	// step's end, counts as a whole, unless it is under half a period and
	// not the only one: the processor time of so short an interval is read
	// at its clock's granularity (a tick in a millisecond looks busy).
	interval := func(final bool) {
		now, cpu := time.Now(), processCPU()
		if wall := now.Sub(last).Seconds(); wall > 0 && (!final || intervals == 0 || wall >= cpuSampleEvery.Seconds()/2) {
			intervals++
			if (cpu-lastCPU).Seconds()/wall < float64(m.cores)-0.5 {
				short++
			}
		}
		last, lastCPU = now, cpu
	}
	for {
		select {
		case <-tick.C:
			interval(false)
		case <-m.stop:
			interval(true)
			if intervals == 0 {
				m.done <- CPUUse{}
				return
			}
			_, sys := processTimes()
			use := CPUUse{
				Cores: (lastCPU - cpu0).Seconds() / last.Sub(start).Seconds(),
				Short: float64(short) / float64(intervals),
			}
			if cpu := lastCPU - cpu0; cpu > 0 {
				use.System = min(1, (sys-sys0).Seconds()/cpu.Seconds())
			}
			m.done <- use
			return
		}
	}
}

// finish ends the measurement and returns it; nil for a nil meter.
func (m *cpuMeter) finish() *CPUUse {
	if m == nil {
		return nil
	}
	close(m.stop)
	use := <-m.done
	return &use
}
