package check

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func kubeletNode(name, version string) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: version}}}
}

// nativePod is a pod with a native sidecar "proxy", on node (may be "").
func nativePod(name, node string) corev1.Pod {
	p := jobPod(name, ctr{name: "export", running: true})
	p.Spec.NodeName = node
	p.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
	return p
}

// A pod with native sidecars on a node whose kubelet is before 1.29 no
// longer fits its mode: an error naming the node, its version and the
// fix. On a 1.29+ node, unscheduled, or without native sidecars: nothing.
func TestModeFit(t *testing.T) {
	f := newFixture(t)
	f.cluster.nodes = []corev1.Node{kubeletNode("new", "v1.32.2"), kubeletNode("old", "v1.28.4")}
	classic := jobPod("classic-on-old", ctr{name: "export", running: true})
	classic.Spec.NodeName = "old"
	f.cluster.pods = append(f.cluster.pods, nativePod("on-new", "new"), nativePod("on-old", "old"), nativePod("pending", ""), classic)
	expectFindings(t, f.run(t, Options{}).Findings, want{checkModeFit, Error, "on-old", []string{
		"pod on-old has native sidecars (proxy), but node old's kubelet is v1.28.4, before v1.29",
		"plain init containers that never end, so its mains never start",
		"fix: inject it in classic mode"}})
}
