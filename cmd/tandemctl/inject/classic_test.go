package inject

import (
	"testing"
)

// A Job whose sidecar has no command (read from its image) and a startup
// probe on a named port, with an init container of its own, a grace period
// and comments: every classic rewrite at once, written out in full.
func TestClassicJob(t *testing.T) {
	r, got := injectYAML(t, classicJob, testOptions())
	if want := "job/export: injected (mains: export; sidecars: db-proxy)"; r.String() != want {
		t.Errorf("report %q; want %q", r, want)
	}
	if got != classicJobInjected {
		t.Errorf("injected:\n%s\nwant:\n%s", got, classicJobInjected)
	}
}

const classicJob = `# The nightly export of the orders table.
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
    spec:
      terminationGracePeriodSeconds: 45
      restartPolicy: Never
      initContainers:
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
        - name: db-proxy
          image: proxy:2
          args:
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
`

const classicJobInjected = `# The nightly export of the orders table.
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
        - name: migrate
          image: app:1
          command: ["/app", "migrate"]
      containers:
        - name: db-proxy
          image: proxy:2
          command:
            - /run/tandem/tandem
            - sidecar
            - --name
            - db-proxy
            - --done-file
            - /run/tandem/export.done
            - --outlive-main
            - 45s
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
          lifecycle:
            postStart:
              exec:
                command:
                  - /run/tandem/tandem
                  - wait
                  - --for
                  - http://127.0.0.1:9090/startup
                  - --timeout
                  - 30s
        - name: export
          image: postgres:16
          # The dump is the container's stdout.
          command:
            - /run/tandem/tandem
            - main
            - --name
            - export
            - --done-file
            - /run/tandem/export.done
            - --
          args: ["pg_dump", "--table=orders"] # pg_dump only
          env:
            - name: PGHOST
              value: 127.0.0.1
          volumeMounts:
            - name: tandem
              mountPath: /run/tandem
      volumes:
        - name: tandem
          emptyDir: {}
`
