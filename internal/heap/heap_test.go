package heap

import (
	"runtime/metrics"
	"testing"
)

func TestGrowth(t *testing.T) {
	for _, c := range []struct{ live, want int64 }{
		{1 << 20, 4 << 20},             // four times what is live, at most
		{50 << 20, 200 << 20},          // still four times
		{100 << 20, headroom},          // headroom
		{300 << 20, 300 << 20},         // what is live, past headroom
		{2 << 30, 2 << 30},             // Go's pace
		{headroom, headroom},           // both
		{headroom / 4, headroom},       // four times is headroom
		{headroom/4 - 1, headroom - 4}, // just under
	} {
		if got := growth(c.live); got != c.want {
			t.Errorf("growth(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

func TestReserveUnpaced(t *testing.T) {
	pacer.Lock()
	on := pacer.on
	pacer.on = false
	pacer.Unlock()
	defer func() {
		pacer.Lock()
		pacer.on = on
		pacer.Unlock()
	}()
	before := gogc()
	release := Reserve(64 << 20)
	if after := gogc(); pacer.reserved != 0 || after != before {
		t.Errorf("Reserve set GOGC from %d to %d, reserved %d, where Pace does not pace the collector", before, after, pacer.reserved)
	}
	release()
}

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
