//go:build k8s

package k8s

import "testing"

// The collector as a log shipper reading files: its filelog receiver
// tails the file the main writes on a shared volume. It reads the file
// every poll_interval (200 ms) and reads nothing more once stopped, so the
// lines written after its last poll reach the sink only if its stop comes
// after one more poll.

// filelogConfig tails /out/app.log from its beginning.
const filelogConfig = `receivers: {filelog: {include: [/out/app.log], start_at: beginning}}
processors: {batch: {}}
exporters: {file: {path: /out/sink.jsonl, append: true}}
service:
  telemetry: {metrics: {level: none}}
  pipelines: {logs: {receivers: [filelog], processors: [batch], exporters: [file]}}
`

// The main writes 1000 numbered lines and exits 0 right after its last:
// under tandem every line, the last one too, must reach the sink: tandem
// stops the collector after its preset's stop delay, 1 s, five poll
// intervals, with no annotation. (Stopped at once, the native mode lost the
// last 25 lines of 1000, docs/shutdown-loss.md.) The kubelet stops the bare
// native sidecar when it next looks at the pod, a second or so after the
// main's end on an idle node, sooner or later under load: before the last
// poll it loses the last lines. Measured and reported, not asserted.
func TestLossFileShipperMainCompletes(t *testing.T) {
	lossParallel(t)
	eachLossVariant(t, func(t *testing.T, v string) {
		r := startLoss(t, lossPlay{variant: v, config: filelogConfig, grace: 30,
			send: []string{"--file", "/out/app.log", "--count", "1000", "--every", "5ms"}}, 100)
		r.mustEnd(t, v, "Complete")
		c := countLoss(t, r.dir)
		if c.acked != 1000 && !isControl(v) {
			t.Errorf("%d lines written; want 1000", c.acked)
		}
		c.assertNone(t, v, "a file shipper, the main completes, "+v)
	})
}
