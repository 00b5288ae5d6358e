//go:build k8s

package k8s

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// logStream follows a container's output (`kubectl logs -f`) from its
// start until it ends: the lines of a pod that is being deleted, which
// `kubectl logs` can no longer read once the pod is gone.
type logStream struct {
	mu    sync.Mutex
	lines []string
	seen  map[string]chan struct{} // closed when a line contains the key
	done  chan struct{}
}

func (n *namespace) follow(ctx context.Context, podName, ctr string, waitFor ...string) *logStream {
	s := &logStream{seen: map[string]chan struct{}{}, done: make(chan struct{})}
	for _, text := range waitFor {
		s.seen[text] = make(chan struct{})
	}
	cmd := exec.CommandContext(ctx, kubectlBin, "--namespace", n.name, "logs", "-f", "--timestamps", podName, "-c", ctr)
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		n.t.Fatalf("follow %s/%s: %v", podName, ctr, err)
	}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.add(sc.Text())
		}
		_ = cmd.Wait()
	}()
	return s
}

func (s *logStream) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, line)
	for text, ch := range s.seen {
		if strings.Contains(line, text) {
			close(ch)
			delete(s.seen, text)
		}
	}
}

// await waits until a line contains text (which follow was given), at
// most bound.
func (s *logStream) await(text string, bound time.Duration) bool {
	s.mu.Lock()
	ch, ok := s.seen[text]
	s.mu.Unlock()
	if !ok {
		return true // seen already
	}
	select {
	case <-ch:
		return true
	case <-time.After(bound):
		return false
	}
}

// ended waits until the container's output ended, at most bound.
func (s *logStream) ended(bound time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(bound):
		return false
	}
}

func (s *logStream) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}
