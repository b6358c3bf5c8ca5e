package gctune

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{32 << 20, 400},  // a small heap: the most garbage GOGC allows
		{64 << 20, 400},  // 256 MiB of garbage is 400%
		{128 << 20, 200}, // and 200%
		{256 << 20, 100}, // and 100%
		{1 << 30, 25},    // then a quarter
		{2560 << 20, 10}, // a tenth at 2.5 GiB
		{3 << 30, 9},     // 256 MiB at least: rounded up
		{5 << 30, 5},     // still 256 MiB at 5 GiB
		{10 << 30, 4},    // and no less than 4%
		{100 << 30, 4},
	} {
		if got := DataGC.percentFor(c.live); got != c.want {
			t.Errorf("DataGC.percentFor(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
	for _, c := range []struct {
		live uint64
		want int
	}{
		{4 << 20, 400},  // the most
		{16 << 20, 200}, // 32 MiB at least
		{64 << 20, 50},  // is half of 64 MiB
		{128 << 20, 25}, // a quarter of 128 MiB
		{1 << 30, 25},   // and no less than a quarter
	} {
		if got := SchedulerGC.percentFor(c.live); got != c.want {
			t.Errorf("SchedulerGC.percentFor(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
