package supervisor

import (
	"path/filepath"
	"testing"

	"github.com/tandem-sh/tandem/supervisor/donewatch"
	"github.com/tandem-sh/tandem/supervisor/peers"
)

// noMains is a peer finder that finds nothing.
type noMains struct{}

func (noMains) FindMain(string) (peers.Peer, bool)            { return peers.Peer{}, false }
func (noMains) WatchMain(peers.Peer) (<-chan struct{}, error) { return nil, nil }

// The engine builds its done watcher on the world's clock, and on the
// world's peer finder when there are no done files to watch.
func TestEngineDoneWatcherUsesTheWorld(t *testing.T) {
	f := newFakes(t)
	mains := noMains{}
	w := f.world()
	w.mains = mains
	cfg := testConfig(ModeSidecar)
	dw := doneWatchConfig(cfg, w)
	if dw.Clock != donewatch.Clock(f) || dw.Mains != donewatch.MainFinder(mains) {
		t.Errorf("without done files: clock %T, peer finder %T; want the world's", dw.Clock, dw.Mains)
	}
	cfg.Sidecar.DoneFiles = []string{filepath.Join(t.TempDir(), "done")}
	dw = doneWatchConfig(cfg, w)
	if dw.Clock != donewatch.Clock(f) || dw.Mains != nil || len(dw.Paths) != 1 || dw.Unsearchable == nil {
		t.Errorf("with a done file: clock %T, peer finder %v, %d files; want the world's clock, no peer, the file, the search check",
			dw.Clock, dw.Mains, len(dw.Paths))
	}
	if _, err := newDoneWatcher(cfg, w, newDeletion(cfg, w)); err != nil {
		t.Fatal(err)
	}
}
