package main

import "github.com/tandem-sh/tandem/supervisor"

// What the commands hand their parsed configuration to; the table tests of
// flags and environment variables replace them to capture it.
var (
	runSupervisor = supervisor.Run
	announceDone  = supervisor.AnnounceDone
	waitFor       = supervisor.WaitFor
)
