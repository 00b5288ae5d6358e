package inject

// The pieces the export Job's input and its classic and native injections
// share, so that each expected resource spells out only what its mode
// changes. Every piece is whole lines, each ending in a line break.

const exportJobHead = `# The nightly export of the orders table.
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
`

// exportInjectedAnnotations follow the pod's own annotations once injected.
const exportInjectedAnnotations = `        kubectl.kubernetes.io/default-container: export
        tandem.sh/injected: "v1.2.3"
`

// exportPodSpecHead opens the pod spec and its initContainers list.
const exportPodSpecHead = `    spec:
      terminationGracePeriodSeconds: 45
      restartPolicy: Never
      initContainers:
`

const exportMigrateInit = `        - name: migrate
          image: app:1
          command: ["/app", "migrate"]
`

const exportContainers = "      containers:\n"

// exportMainHead is the main container up to its command.
const exportMainHead = `        - name: export
          image: postgres:16
          # The dump is the container's stdout.
`

const exportMainCommand = `          command: ["pg_dump", "--table=orders"] # pg_dump only
`

const exportMainEnv = `          env:
            - name: PGHOST
              value: 127.0.0.1
`

const dbProxyHead = `        - name: db-proxy
          image: proxy:2
`

// dbProxyInjectedArgs are the image's entrypoint followed by the pod's args.
const dbProxyInjectedArgs = `          args:
            - /cloud-sql-proxy
` + dbProxyArgs

const dbProxyArgs = `            - --port=5432
            - "my-project:europe-west1:orders"
`

const dbProxyPortsAndProbe = `          ports:
            - name: health
              containerPort: 9090
          startupProbe:
            httpGet:
              path: /startup
              port: health
            periodSeconds: 2
            failureThreshold: 15
`

const tandemVolumeMount = `          volumeMounts:
            - name: tandem
              mountPath: /run/tandem
`

const tandemInstallInit = `        - name: tandem-install
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
` + tandemVolumeMount

const tandemVolume = `      volumes:
        - name: tandem
          emptyDir: {}
`

// exportJobReport is the report for the export Job in either mode.
const exportJobReport = "job/export: injected (mains: export; sidecars: db-proxy)"

// dbProxyStartHook holds the main's start until the proxy's startup probe
// holds (classic mode).
const dbProxyStartHook = `          lifecycle:
            postStart:
              exec:
                command:
                  - /run/tandem/tandem
                  - wait
                  - --for
                  - http://127.0.0.1:9090/startup
                  - --timeout
                  - 30s
`
