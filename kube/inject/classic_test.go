package inject

import (
	"testing"
)

// A Job whose sidecar has no command (read from its image) and a startup
// probe on a named port, with an init container of its own, a grace period
// and comments: every classic rewrite at once, written out in full.
func TestClassicJob(t *testing.T) {
	injectsTo(t, classicJob, testOptions(), exportJobReport, classicJobInjected)
}

// classicJob is the input both modes inject.
const classicJob = exportJobHead + exportPodSpecHead + exportMigrateInit +
	exportContainers + exportMainHead + exportMainCommand + exportMainEnv +
	dbProxyHead + "          args:\n" + dbProxyArgs + dbProxyPortsAndProbe

// Classic mode: tandem-install first, the sidecar first among the
// containers under `tandem sidecar` with a postStart wait, the main under
// `tandem main`.
const classicJobInjected = exportJobHead + exportInjectedAnnotations +
	exportPodSpecHead + tandemInstallInit + exportMigrateInit + exportContainers +
	dbProxyHead + `          command:
            - /run/tandem/tandem
            - sidecar
            - --name
            - db-proxy
            - --done-file
            - /run/tandem/export.done
            - --outlive-main
            - 45s
            - --restart
            - always
            - --main-start-timeout
            - 600s
            - --grace
            - 5s
            - --
` + dbProxyInjectedArgs + dbProxyPortsAndProbe + tandemVolumeMount +
	dbProxyStartHook + exportMainHead + `          command:
            - /run/tandem/tandem
            - main
            - --name
            - export
            - --done-file
            - /run/tandem/export.done
            - --termination-grace
            - 40s
            - --
          args: ["pg_dump", "--table=orders"] # pg_dump only
` + exportMainEnv + tandemVolumeMount + tandemVolume
