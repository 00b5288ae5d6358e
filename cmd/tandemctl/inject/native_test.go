package inject

import "testing"

// Native mode: the sidecar moves to initContainers, after tandem-install
// and before the pod's own, with restartPolicy: Always under `tandem run`;
// the main is left exactly as it was.
func TestNativeJob(t *testing.T) {
	opts := testOptions()
	opts.Mode = Native
	r, got := injectYAML(t, classicJob, opts)
	if want := "job/export: injected (mains: export; sidecars: db-proxy)"; r.String() != want {
		t.Errorf("report %q; want %q", r, want)
	}
	if got != nativeJobInjected {
		t.Errorf("injected:\n%s\nwant:\n%s", got, nativeJobInjected)
	}
}

const nativeJobInjected = `# The nightly export of the orders table.
apiVersion: batch/v1
kind: Job
metadata:
  name: export
spec:
  backoffLimit: 2 # a retry or two
  template:
    metadata:
      labels:
        app: export
      annotations:
        tandem.sh/sidecars: "db-proxy"
        kubectl.kubernetes.io/default-container: export
        tandem.sh/injected: "v1.2.3"
    spec:
      terminationGracePeriodSeconds: 45
      restartPolicy: Never
      initContainers:
        - name: tandem-install
          image: ghcr.io/tandem-sh/tandem:v1.2.3
          command:
            - /tandem
            - install
            - /run/tandem
          securityContext:
            runAsNonRoot: true
            runAsUser: 65532
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: [ALL]
            seccompProfile:
              type: RuntimeDefault
          volumeMounts:
            - name: tandem
              mountPath: /run/tandem
        - name: db-proxy
          image: proxy:2
          restartPolicy: Always
          command:
            - /run/tandem/tandem
            - run
            - --name
            - db-proxy
            - --
          args:
            - /cloud-sql-proxy
            - --port=5432
            - "my-project:europe-west1:orders"
          ports:
            - name: health
              containerPort: 9090
          startupProbe:
            httpGet:
              path: /startup
              port: health
            periodSeconds: 2
            failureThreshold: 15
          volumeMounts:
            - name: tandem
              mountPath: /run/tandem
        - name: migrate
          image: app:1
          command: ["/app", "migrate"]
      containers:
        - name: export
          image: postgres:16
          # The dump is the container's stdout.
          command: ["pg_dump", "--table=orders"] # pg_dump only
          env:
            - name: PGHOST
              value: 127.0.0.1
      volumes:
        - name: tandem
          emptyDir: {}
`
