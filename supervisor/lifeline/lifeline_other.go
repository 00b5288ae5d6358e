//go:build !linux

package lifeline

import "errors"

var errNotLinux = errors.New("lifelines work on Linux only")

// Holder is a stub off Linux.
type Holder struct{}

// Hold always fails off Linux.
func Hold(path, host string) (*Holder, error) {
	return nil, &UnusableError{Path: path, Err: errNotLinux}
}

// HoldAs always fails off Linux.
func HoldAs(path, host string, _ Kind) (*Holder, error) { return Hold(path, host) }

// Release does nothing off Linux.
func (h *Holder) Release() {}

// Path is empty off Linux.
func (h *Holder) Path() string { return "" }

// Line is a stub off Linux.
type Line struct{}

// Watch always fails off Linux.
func Watch(path, host string) (*Line, error) {
	return nil, &UnusableError{Path: path, Err: errNotLinux}
}

// Wait returns at once off Linux.
func (l *Line) Wait() error { return errNotLinux }

// Kind is KindDone off Linux.
func (l *Line) Kind() Kind { return KindDone }

// Same is false off Linux.
func (l *Line) Same() bool { return false }

// Close does nothing off Linux.
func (l *Line) Close() {}
