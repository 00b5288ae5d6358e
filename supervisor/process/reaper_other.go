//go:build !linux

package process

import "errors"

// tandem is a Linux container init (subreaper, parent-death signal, /proc).
// Elsewhere the package builds and vets, and every start fails clearly.
var errNotLinux = errors.New("tandem supervises processes on Linux only")

// Reaper is a stub off Linux.
type Reaper struct{}

// StartReaper is a stub off Linux.
func StartReaper() *Reaper { return &Reaper{} }

// Reaped is never signalled off Linux.
func (r *Reaper) Reaped() <-chan struct{} { return nil }

// NameThread always fails off Linux.
func (r *Reaper) NameThread(string) error { return errNotLinux }

// BecomeSubreaper always fails off Linux.
func BecomeSubreaper() error { return errNotLinux }
