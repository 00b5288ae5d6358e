// Package presets is tandemctl's table of known sidecars: for each image
// repository, what the project read in the sidecar's own source (its stop
// signal, how it is asked to quit, its readiness, whether mains need it).
// The table is data (presets.json); inject and the webhook read it alike.
package presets
