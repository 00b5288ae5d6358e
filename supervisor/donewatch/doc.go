// Package donewatch is the sidecar's done watcher: it tells the engine,
// with one Event, when the main work is done (docs/files.md).
//
// Its lifecycle:
//
//  1. New takes the done files and opens nothing yet.
//  2. Check, called once by the engine before CMD starts and then by Run
//     on every wake-up, reads the files. While the condition does not hold,
//     it attaches to each main's lifeline; while some main is not attached,
//     it watches the files' directories with fsnotify (each one, or its
//     nearest existing ancestor until it is created) and reads the files
//     again after adding the watches, so nothing written before a watch is
//     missed. While every main is attached, fsnotify is closed.
//  3. Run wakes on a relevant fsnotify event, the --poll-interval stat
//     (only while watching, or alone where fsnotify is unavailable), a
//     lifeline's release, the end of a `tandem main` peer held through a
//     pidfd (no done files) or --main-start-timeout. It sends one Event
//     when the condition holds, then closes fsnotify and returns.
package donewatch
