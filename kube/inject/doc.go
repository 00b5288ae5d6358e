// Package inject rewrites Kubernetes pod templates so that their containers
// run under tandem: the manifest rewriting that `tandemctl inject` and the
// admission webhook share.
//
// It works on a YAML node tree (go.yaml.in/yaml/v3), never on Kubernetes
// structs: what it does not rewrite keeps its field order, comments and
// styles, and no defaulted field (creationTimestamp: null, status: {},
// resources: {}) appears.
//
// For one resource, Prepare finds the pod template of its kind and plans
// its rewrite without changing anything: it reads the containers as kubectl
// reads them (aliases and merge keys expanded), names the sidecars
// (--sidecar, the tandem.sh/sidecars annotation, a preset), checks for names
// that collide, and lists the images it must read (Images), so a caller can
// read them all at once. Inject then reads the program of each container to
// wrap (its command and args, else its image's ENTRYPOINT and CMD through an
// EntrypointResolver, merged as Kubernetes merges them) and decides every
// command line, start hook and warning. Everything that can fail fails
// there. Only then does it apply the plan, which only writes and cannot
// fail: the tandem volumes, the install init container (init-copy; none
// under image-volume), every container wrapped. So a resource is never left half-rewritten. Resource does both;
// the Report says what happened, per resource.
package inject
