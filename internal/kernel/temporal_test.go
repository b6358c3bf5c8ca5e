package kernel

import (
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
)

// TestTruncateTimesAcrossClockChanges floors instants every 10 minutes
// across the switches of 2019 in New York and Paris: to an hour or a
// quarter, the start keeps the value's offset (01:30 EST floors to 01:00
// EST, 06:00Z, not the 01:00 EDT an hour before), so it is the instant's
// own floor in UTC, as the offsets are whole hours; to a day, the local
// midnight.
func TestTruncateTimesAcrossClockChanges(t *testing.T) {
	for _, zone := range []string{"America/New_York", "Europe/Paris"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []time.Time{
			time.Date(2019, 11, 3, 3, 0, 0, 0, time.UTC), time.Date(2019, 3, 10, 5, 0, 0, 0, time.UTC), // New York's
			time.Date(2019, 10, 26, 22, 0, 0, 0, time.UTC), time.Date(2019, 3, 30, 23, 0, 0, 0, time.UTC), // Paris'
		} {
			var vals []int64
			var times []time.Time
			for m := 0; m < 6*60; m += 10 {
				tm := from.Add(time.Duration(m) * time.Minute)
				times, vals = append(times, tm), append(vals, tm.UnixMicro())
			}
			for _, c := range []struct {
				every string
				want  func(time.Time) time.Time
			}{
				{"1h", func(tm time.Time) time.Time { return tm.Truncate(time.Hour) }},
				{"15m", func(tm time.Time) time.Time { return tm.Truncate(15 * time.Minute) }},
				{"1d", func(tm time.Time) time.Time {
					l := tm.In(loc)
					return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
				}},
			} {
				e, err := ParseEvery(c.every)
				if err != nil {
					t.Fatal(err)
				}
				got := TruncateTimes(vals, arrow.Microsecond, loc, e)
				for i, tm := range times {
					if w := c.want(tm); got[i] != w.UnixMicro() {
						t.Errorf("%s %s: %s floors to %s, want %s", zone, c.every, tm.In(loc).Format(time.RFC3339),
							time.UnixMicro(got[i]).In(loc).Format(time.RFC3339), w.In(loc).Format(time.RFC3339))
					}
				}
			}
		}
	}
}
