package bench

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestCPUMeter measures steps that keep every core busy and one that
// sleeps: the busy one's cores exceed the idle one's, and each share of
// short intervals is a fraction.
func TestCPUMeter(t *testing.T) {
	if processCPU() == 0 {
		t.Skip("no processor time to read on this system")
	}
	spin := func(cpu time.Duration) {
		var wg sync.WaitGroup
		for range runtime.NumCPU() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for start, x := processCPU(), 1.0; processCPU()-start < cpu; {
					for range 100000 {
						x = x*1.0000001 + 1e-9
					}
				}
			}()
		}
		wg.Wait()
	}
	m := startCPU(runtime.NumCPU())
	spin(300 * time.Millisecond)
	busy := m.finish()
	m = startCPU(runtime.NumCPU())
	done := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { close(done) })
	<-done
	idle := m.finish()
	if busy == nil || idle == nil {
		t.Fatal("no measurement")
	}
	if !(busy.Cores > idle.Cores) {
		t.Errorf("busy step kept %.2f cores, idle one %.2f", busy.Cores, idle.Cores)
	}
	for _, u := range []*CPUUse{busy, idle} {
		if u.Short < 0 || u.Short > 1 || u.System < 0 || u.System > 1 {
			t.Errorf("shares of short intervals %v and of the kernel %v", u.Short, u.System)
		}
	}
	if idle.Short != 1 {
		t.Errorf("an idle step was short of cores in %.0f%% of its intervals, want all", 100*idle.Short)
	}
	if startCPU(0).finish() != nil {
		t.Error("a meter for no cores measured")
	}
}
