package metrics

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
)

// BenchmarkMetricsCost measures what the Prometheus recorder adds to an
// admission's p50: the same handler without metrics and with them, in
// alternating blocks within one run, so both see the same machine load. It
// reports both medians and their ratio; it asserts no time (the recorder should
// add at most 5 %; docs/benchmarks.md has what it measured).
//
//	go test -run '^$' -bench MetricsCost -benchtime 20000x ./kube/webhook/metrics
func BenchmarkMetricsCost(b *testing.B) {
	const block = 100
	img := &images{}
	handlers := []http.Handler{
		newHandler(b, nil, img, inject.Reject),      // NoRecorder
		newHandler(b, New(nil), img, inject.Reject), // Prometheus
	}
	body := reviewBody(b, pod)
	took := [2][]time.Duration{}
	i := 0
	for b.Loop() {
		// Blocks of one, then of the other, so that a slow spell of the
		// machine falls on both.
		which := (i / block) % 2
		start := time.Now()
		if code := serve(handlers[which], body); code != http.StatusOK {
			b.Fatalf("status %d", code)
		}
		took[which] = append(took[which], time.Since(start))
		i++
	}
	if len(took[0]) == 0 || len(took[1]) == 0 {
		return // the calibration run, too short for both
	}
	without, with := median(took[0]), median(took[1])
	b.ReportMetric(float64(without.Nanoseconds()), "p50-no-metrics-ns")
	b.ReportMetric(float64(with.Nanoseconds()), "p50-metrics-ns")
	b.ReportMetric(100*(float64(with)/float64(without)-1), "metrics-cost-%")
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
