package inject

import "testing"

// Native mode: the sidecar moves to initContainers, after tandem-install
// and before the pod's own, with restartPolicy: Always under `tandem run`;
// the main is left exactly as it was.
func TestNativeJob(t *testing.T) {
	opts := testOptions()
	opts.Mode = Native
	injectsTo(t, classicJob, opts, exportJobReport, nativeJobInjected)
}

const nativeJobInjected = exportJobHead + exportInjectedAnnotations +
	exportPodSpecHead + tandemInstallInit + dbProxyHead +
	`          restartPolicy: Always
          command:
            - /run/tandem/tandem
            - run
            - --name
            - db-proxy
            - --
` + dbProxyInjectedArgs + dbProxyPortsAndProbe + tandemVolumeMount +
	exportMigrateInit + exportContainers +
	exportMainHead + exportMainCommand + exportMainEnv + tandemVolume
