// Package lifeline ties a sidecar to the tandem that writes its done file,
// through the kernel alone: no heartbeat, no timestamps, no polling.
//
// The writer (tandem main, or a sidecar with --stopped-file) holds a FIFO
// at DONEFILE.lifeline open for reading and writing, from its start until
// after the done file is written. It creates the FIFO under a temporary
// name, opens it, and only then renames it into place, so a FIFO at the
// path always had a holder. The kernel closes the holder's descriptor when
// the process ends in any way, SIGKILL included. Its modification time is
// stamped with the pod's host and the Kind of file the holder will write.
//
// The watcher (tandem sidecar) opens the FIFO for reading, without
// blocking. A read on a FIFO returns end-of-file as soon as no writer holds
// it, and waits (in the runtime's poller, no timer) while one does: so the
// read says "attached" or "released" at once, and a blocked read returns
// the moment the holder is gone. Released with no done file means the
// holder was lost.
package lifeline
