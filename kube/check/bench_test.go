package check

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// heldPodsCluster is a fixture with n pods of Jobs, one in ten held.
func heldPodsCluster(b *testing.B, n int) *fixture {
	b.Helper()
	f := newFixture(b)
	for i := range n {
		pod := jobPod(fmt.Sprintf("export-%d", i), ctr{name: "export", ago: time.Hour})
		if i%10 == 0 {
			pod = jobPod(fmt.Sprintf("export-%d", i), ctr{name: "export", ago: time.Hour}, ctr{name: "proxy", running: true})
		}
		f.cluster.pods = append(f.cluster.pods, pod)
	}
	b.ResetTimer()
	return f
}

// The held-pods check over 1,000 pods, the cluster read from memory: the
// cost of check's own work.
func BenchmarkHeldPods1000(b *testing.B) {
	f := heldPodsCluster(b, 1000)
	c := checker{cluster: f.cluster, prober: f.prober, now: testNow}
	for b.Loop() {
		if r, err := c.run(context.Background(), Options{StuckAfter: time.Minute}); err != nil || r.Errors() != 100 {
			b.Fatalf("%d errors, %v; want 100", r.Errors(), err)
		}
	}
}

// The same through the real typed clients and an API server on loopback
// answering JSON in pages of 500: what decoding 1,000 pods adds.
func BenchmarkHeldPods1000ThroughTheAPI(b *testing.B) {
	f := heldPodsCluster(b, 1000)
	api := &apiServer{t: b, cluster: f.cluster}
	c := checker{cluster: NewAPICluster(api.clients()), prober: f.prober, now: testNow}
	b.ResetTimer()
	for b.Loop() {
		if r, err := c.run(context.Background(), Options{StuckAfter: time.Minute}); err != nil || r.Errors() != 100 {
			b.Fatalf("%d errors, %v; want 100", r.Errors(), err)
		}
	}
}

// 1,000 pods that name a sidecar and were admitted without tandem: each
// is injected in memory to tell, the uninjected-pod check's worst case.
func BenchmarkUninjected1000(b *testing.B) {
	f := newFixture(b)
	for i := range 1000 {
		p := runningJobPod()
		p.Name = fmt.Sprintf("export-%d", i)
		f.cluster.pods = append(f.cluster.pods, p)
	}
	c := checker{cluster: f.cluster, prober: f.prober, now: testNow}
	b.ResetTimer()
	for b.Loop() {
		if r, err := c.run(context.Background(), Options{StuckAfter: time.Minute}); err != nil || r.Errors() != 1000 {
			b.Fatalf("%d errors, %v; want 1000", r.Errors(), err)
		}
	}
}
