//go:build !linux

package supervisor

import (
	"errors"
	"os"
)

var errInotifyOverflow = errors.New("inotify queue overflow: events were lost")

type inotifyEvent struct {
	wd       int32
	name     string
	ignored  bool
	overflow bool
}

// openInotify fails off Linux: the done files are polled.
func openInotify() (*os.File, error) { return nil, errors.New("inotify is Linux only") }

func addInotifyWatch(*os.File, string) (int32, error) { return 0, errors.New("inotify is Linux only") }

func removeInotifyWatch(*os.File, int32) error { return errors.New("inotify is Linux only") }

func parseInotify([]byte, func(inotifyEvent)) {}
