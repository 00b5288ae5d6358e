# tandem: `make demo` shows it working, `make test` proves it.
SHELL      := /bin/bash
GO         ?= go
# A build says `dev` and its commit; `make release VERSION=vX.Y.Z` stamps a
# release (docs/releases.md). -dirty: the tree had changes the commit lacks.
VERSION    ?= dev
COMMIT     ?= $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) || { echo unknown; exit; }; \
                git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c)
PKG        := github.com/tandem-sh/tandem
LDFLAGS    := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# urfave_cli_no_docs drops the man/markdown generators (~0.3 MB) we never use.
BUILDFLAGS := -trimpath -tags urfave_cli_no_docs -ldflags "$(LDFLAGS)"
BIN        := bin/tandem
CTL        := bin/tandemctl
MAX_SIZE   := 6291456

export CGO_ENABLED := 0

.PHONY: all build release release-files sign publish image image-context demo test lint vuln fuzz e2e e2e-k8s e2e-k8s-core e2e-k8s-matrix k8s-ci-versions bench bench-k8s clean

all: build

build: $(BIN) $(CTL)

$(BIN): $(shell find cmd/tandem supervisor internal -name '*.go') go.mod go.sum
	$(GO) build $(BUILDFLAGS) -o $@ ./cmd/tandem
	@size=$$(stat -c %s $@); echo "$@: $$size bytes"; \
	  if [ $$size -gt $(MAX_SIZE) ]; then echo "binary exceeds 6 MiB, the most tandem may weigh (README.md)"; exit 1; fi

# tandemctl runs on operators' machines, never in a workload: its size is
# free. A kubectl-tandem link to it is a kubectl plugin.
$(CTL): $(shell find cmd/tandemctl kube internal -name '*.go') go.mod go.sum
	$(GO) build $(BUILDFLAGS) -o $@ ./cmd/tandemctl
	@ln -sf tandemctl bin/kubectl-tandem
	@echo "$@: $$(stat -c %s $@) bytes (and bin/kubectl-tandem, a link: \`kubectl tandem inject\`)"

# dist/ for a release: both binaries for linux/amd64 and linux/arm64, a
# CycloneDX SBOM of each (cyclonedx-gomod, pinned, from the module graph the
# binary embeds), the multi-arch images tandem and tandemctl as OCI archives
# (internal/release: FROM scratch plus the binary, as Dockerfile.scratch and
# Dockerfile.tandemctl say), and SHA256SUMS. Byte-identical from any clone of
# the commit with the same Go (.ci/reproducible.sh): -trimpath, times from
# the commit (SOURCE_DATE_EPOCH), SBOMs without time or serial number. The
# tandemctl image carries $(CA_CERTS), the host's. tandemctl is also a krew
# plugin: an archive per architecture (kubectl-tandem and LICENSE) and
# tandem.krew.yaml naming them under RELEASE_URL, written only once krew's
# own validator accepts it (a tool in go.mod). The
# Helm chart charts/tandem as tandem-X.Y.Z.tgz (chart version X.Y.Z,
# appVersion vX.Y.Z: the tandemctl tag it installs), packaged by Helm's Go
# packages with its files at the commit's time.
# Each binary also has an SPDX 2.3 SBOM (internal/release, from the same
# embedded module graph); both SBOMs name the binary's license, Apache-2.0
# (LICENSE), as the images' org.opencontainers.image.licenses do; and
# provenance.intoto.json is the SLSA provenance of every binary and image:
# the commit, the Go, the flags, the modules.
# With COSIGN_KEY (a cosign private key; its password in COSIGN_PASSWORD),
# every file SHA256SUMS lists (the chart's archive among them) and SHA256SUMS
# itself are signed, each into FILE.sigstore.json, and the public key is
# written to cosign.pub: after SHA256SUMS, which lists none of them (a
# signature differs at each run).
# Without it, dist/ is the same but unsigned, and make release says so.
CYCLONEDX  := github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
COSIGN_KEY ?=
RELEASE_BUILDER ?= https://github.com/tandem-sh/tandem/blob/main/Makefile
RELEASE_ARCHS := amd64 arm64
RELEASE_URL ?= https://github.com/tandem-sh/tandem/releases/download/$(VERSION)
release: export SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null)
# A private key is kept outside the checkout: inside, it is one `git add`
# from a commit (.gitignore keeps *.key out of `git add -A` too).
check-key = @test -z "$(COSIGN_KEY)" || { test -r "$(COSIGN_KEY)" || \
  { echo "COSIGN_KEY=$(COSIGN_KEY): no such file; expected a cosign private key (cosign generate-key-pair)"; exit 2; }; \
  top=$$(git rev-parse --show-toplevel 2>/dev/null); case "$$(realpath -m -- "$(COSIGN_KEY)")" in "$$top"/*) test -z "$$top" || \
  { echo "COSIGN_KEY=$(COSIGN_KEY): the private key is inside the checkout ($$top), one git add from a commit; expected it outside, e.g. $$HOME/.tandem-release/cosign.key (docs/releases.md\#make-a-release)"; exit 2; };; esac; }
# vX.Y.Z with an optional pre-release (semver.org, without build metadata,
# which an image tag cannot hold).
semver-id := (0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)
check-version = @grep -Eqx 'v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-$(semver-id)(\.$(semver-id))*)?' <<<"$(VERSION)" || \
  { echo "VERSION=$(VERSION): expected vX.Y.Z or vX.Y.Z-PRERELEASE (semver), e.g. make $@ VERSION=v1.2.3"; exit 2; }
release:
	$(check-version)
	@test -z "$$(git status --porcelain 2>/dev/null)" && test -n "$$SOURCE_DATE_EPOCH" || \
	  { echo "make release needs a clean git checkout: a release is its commit, nothing else"; git status --short; exit 2; }
	$(check-key)
	@rm -rf dist; $(MAKE) --no-print-directory release-files || \
	  { rm -rf dist; echo "make release failed: dist/ removed, so that no half-made release is left"; exit 1; }
	@ls -l dist

# What make release writes into dist/, checked first by make release, which
# removes dist/ when a step fails.
release-files:
	mkdir dist
	@for arch in $(RELEASE_ARCHS); do for cmd in tandem tandemctl; do \
	  echo "GOOS=linux GOARCH=$$arch $(GO) build -o dist/$$cmd-linux-$$arch ./cmd/$$cmd"; \
	  GOOS=linux GOARCH=$$arch $(GO) build $(BUILDFLAGS) -o dist/$$cmd-linux-$$arch ./cmd/$$cmd || exit 1; \
	  GOFLAGS=-trimpath $(GO) run $(CYCLONEDX) bin -json -std -noserial -notimestamp -version $(VERSION) \
	    -output dist/$$cmd-linux-$$arch.cdx.json dist/$$cmd-linux-$$arch || exit 1; \
	done; done
	$(GO) run ./internal/release/cmd/release cyclonedx-license dist/*.cdx.json
	$(GO) run ./internal/release/cmd/release spdx -version $(VERSION) -epoch $$SOURCE_DATE_EPOCH dist/*-linux-*[0-9]
	$(GO) run ./internal/release/cmd/release images -dist dist -version $(VERSION) \
	  -revision $$(git rev-parse HEAD) -epoch $$SOURCE_DATE_EPOCH -ca-certs $(CA_CERTS)
	$(GO) run ./internal/release/cmd/release krew -dist dist -version $(VERSION) \
	  -url $(RELEASE_URL) -epoch $$SOURCE_DATE_EPOCH -go $(GO) -license LICENSE
	$(GO) run ./internal/release/cmd/release chart -dist dist -version $(VERSION) -epoch $$SOURCE_DATE_EPOCH
	$(GO) run ./internal/release/cmd/release provenance -version $(VERSION) -revision $$(git rev-parse HEAD) \
	  -builder $(RELEASE_BUILDER) -o dist/provenance.intoto.json \
	  -image dist/tandem-image.tar -image dist/tandemctl-image.tar dist/*-linux-*[0-9]
	cd dist && sha256sum -- * > SHA256SUMS
	@if [ -n "$(COSIGN_KEY)" ]; then $(MAKE) --no-print-directory sign DIST=dist; \
	else echo "COSIGN_KEY is not set: dist/ is not signed (make release COSIGN_KEY=KEY signs it)"; fi

# Signs DIST/SHA256SUMS and every file it lists with COSIGN_KEY, each into
# FILE.sigstore.json, and writes DIST/cosign.pub (make release does this
# with a key; alone, it signs a dist/ made without one).
DIST ?= dist
sign:
	$(check-key)
	@test -n "$(COSIGN_KEY)" -a -r $(DIST)/SHA256SUMS || { echo "make sign: expected COSIGN_KEY=FILE and a $(DIST)/SHA256SUMS (make release)"; exit 2; }
	$(GO) run ./internal/release/cmd/release sign -key $(COSIGN_KEY) -go $(GO) -pub $(DIST)/cosign.pub \
	  $(DIST)/SHA256SUMS $$(awk '{print "$(DIST)/" $$2}' $(DIST)/SHA256SUMS) >/dev/null
	@echo "$(DIST)/: $$(ls $(DIST) | grep -c '\.sigstore\.json$$') files signed with $(COSIGN_KEY); public key $(DIST)/cosign.pub"

# Pushes dist/'s multi-arch images to REGISTRY/tandem:VERSION and
# REGISTRY/tandemctl:VERSION, with the credentials of `docker login` or
# `podman login` (the Docker config, $$REGISTRY_AUTH_FILE, containers/auth.json),
# then the chart as an OCI artifact to REGISTRY/charts/tandem:X.Y.Z
# (`helm install tandem oci://REGISTRY/charts/tandem --version X.Y.Z`), with
# the credentials of `helm registry login` or `docker login`. A registry on
# localhost or 127.0.0.1 is spoken to in plain HTTP.
# With COSIGN_KEY, signs each pushed index and its images (cosign sign
# --recursive) and the chart, and attaches dist/'s provenance
# (slsaprovenance1) and both architectures' SPDX and CycloneDX SBOMs to the
# images as signed attestations.
# DIST: another release's dist/ (integration/release).
publish:
	$(check-version)
	@test -n "$(REGISTRY)" || { echo "REGISTRY: expected HOST/PATH, e.g. make publish VERSION=v1.2.3 REGISTRY=ghcr.io/tandem-sh"; exit 2; }
	$(check-key)
	$(GO) run ./internal/release/cmd/release publish -dist $(DIST) -version $(VERSION) -registry $(REGISTRY) \
	  $(if $(COSIGN_KEY),-key $(COSIGN_KEY) -go $(GO))
	@test -n "$(COSIGN_KEY)" || echo "COSIGN_KEY is not set: the images and the chart are not signed (make publish COSIGN_KEY=KEY signs them)"

# Images, both FROM scratch with no RUN (so another architecture needs no
# emulation): tandem (Dockerfile.scratch) and tandemctl (Dockerfile.tandemctl,
# with the host's CA certificates for registries over TLS). Each build's
# context is bin/image/ARCH/ alone. podman is shared on the project's
# machines: run these as `flock /tmp/podman.lock make image`.
IMAGE_REPO ?= localhost
HOST_ARCH  := $(shell $(GO) env GOARCH)
CA_CERTS   ?= /etc/ssl/certs/ca-certificates.crt
IMAGES     := tandem:Dockerfile.scratch tandemctl:Dockerfile.tandemctl

# image-context ARCH=a TANDEM=path TANDEMCTL=path: stage one build context.
image-context:
	@test -r $(CA_CERTS) || { echo "$(CA_CERTS) missing: apt-get install ca-certificates"; exit 1; }
	@mkdir -p bin/image/$(ARCH)/bin
	@cp $(TANDEM) bin/image/$(ARCH)/bin/tandem
	@cp $(TANDEMCTL) bin/image/$(ARCH)/bin/tandemctl
	@cp $(CA_CERTS) bin/image/$(ARCH)/bin/ca-certificates.crt

image: build
	@$(MAKE) --no-print-directory image-context ARCH=$(HOST_ARCH) TANDEM=$(BIN) TANDEMCTL=$(CTL)
	@for pair in $(IMAGES); do name=$${pair%%:*}; file=$${pair#*:}; \
	  podman build -q -f $$file -t $(IMAGE_REPO)/$$name:$(VERSION) -t $(IMAGE_REPO)/$$name:latest bin/image/$(HOST_ARCH) >/dev/null || exit 1; \
	  echo "$(IMAGE_REPO)/$$name:$(VERSION): $$(podman image inspect --format '{{.Size}}' $(IMAGE_REPO)/$$name:$(VERSION)) bytes"; \
	done

# The demo runs tandem alone: tandemctl (client-go) is not built for it.
demo: $(BIN)
	@./examples/demo.sh $(BIN)

# Every test: vet, then every package's tests, the race detector on the
# packages whose code runs goroutines (the engine, the webhook's serving,
# admission, metrics and registry cache, the integration harness, whose
# helper programs also block in select{}: a static build without -race
# would call that a deadlock). Every fuzz target's seed inputs run as plain
# tests. The other packages' tests run without -race: under it they would
# compile client-go and the Kubernetes API types a second time (160 s on a
# cold build cache, 2 cores), for code that starts no goroutine of its own
# (or, in check and tandemctl's main package, only behind client-go). The
# fuzzing itself instruments the standard library (40 s cold) and, for the
# admission webhook, the API types (77 s more). CI does both after make
# test: test-race and fuzz. vet and the plain tests use the build's flags
# (TESTFLAGS), so they share its build cache.
# The race detector needs cgo, so a C compiler; the binary under test stays
# static either way. atexit_sleep_ms=0: a race-enabled binary otherwise
# sleeps 1 s at exit, and the test binary also plays the programs tandem runs.
HAVE_CC   := $(shell command -v cc >/dev/null 2>&1 && echo yes)
TESTFLAGS := -trimpath -tags urfave_cli_no_docs
RACE_PKGS := ./supervisor/... ./kube/webhook ./kube/webhook/admission \
             ./kube/webhook/metrics ./kube/registry ./integration/...
race_pkgs  = $(shell $(GO) list $(RACE_PKGS))
other_pkgs = $(filter-out $(race_pkgs),$(shell $(GO) list ./...))
RACE_TEST := CGO_ENABLED=1 GORACE=atexit_sleep_ms=0 TANDEM_BIN=$(CURDIR)/$(BIN) $(GO) test -race -count=1
test: $(BIN)
	$(GO) vet $(TESTFLAGS) ./...
	TANDEM_BIN=$(CURDIR)/$(BIN) $(GO) test $(TESTFLAGS) -count=1 -timeout 10m $(other_pkgs)
ifeq ($(HAVE_CC),yes)
	$(RACE_TEST) -timeout 10m $(RACE_PKGS)
else
	@echo "no C compiler: running the tests without the race detector (apt-get install gcc for -race)"
	TANDEM_BIN=$(CURDIR)/$(BIN) $(GO) test $(TESTFLAGS) -count=1 -timeout 10m $(RACE_PKGS)
endif

# The Go tools of make lint and make vuln: tools/go.mod, a module of their
# own. In go.mod (where helm, cosign and krew are, as the release needs
# them), golangci-lint's requirements would move 23 of the product's
# modules (golang.org/x/tools, google.golang.org/api, genproto, ...) to the
# versions it wants: what tandemctl is built from would follow its linter.
TOOL       := $(GO) tool -modfile=$(CURDIR)/tools/go.mod
# Every module of the repository (find . -name go.mod), as a directory.
GO_MODULES := $(patsubst %/go.mod,%,$(shell find . -name go.mod -not -path './bin/*' -not -path './dist/*' | sort))
LINT_TAGS  := urfave_cli_no_docs,e2e,k8s,k8sbench,release

# golangci-lint v2 over every package of every module with code, every
# build tag the Makefile uses (.golangci.yml says which linters and why).
lint:
	@for mod in $(filter-out ./tools,$(GO_MODULES)); do echo "golangci-lint run $$mod/..."; \
	  (cd $$mod && $(TOOL) golangci-lint run --config $(CURDIR)/.golangci.yml ./...) || exit 1; \
	done

# govulncheck over every module, with no network: the database is built
# from the OSV files of the golang.org/x/vulndb module tools/go.mod pins
# (its cmd/indexdb), once per version, into VULNDB outside the checkout.
# The packages of each module and the Go tools its go.mod names (helm,
# cosign, krew: the release's). Fails on a vulnerability in code that is
# called unless docs/security.md lists it with why it cannot be fixed yet
# (so a new finding never hides among known ones); what is only imported
# or required is listed by
# `make vuln VULNFLAGS='-show verbose'`.
# docs/security.md lists what cannot be fixed, and why.
VULNDB_VERSION = $(shell $(GO) list -modfile=tools/go.mod -m -f '{{.Version}}' golang.org/x/vulndb)
VULNDB    ?= $(HOME)/.cache/tandem-vulndb/$(VULNDB_VERSION)
VULNFLAGS ?=
vuln:
	@if [ ! -f $(VULNDB)/index/db.json ]; then \
	  $(GO) mod download -modfile=tools/go.mod golang.org/x/vulndb || exit 1; \
	  src=$$($(GO) list -modfile=tools/go.mod -m -f '{{.Dir}}' golang.org/x/vulndb) || exit 1; \
	  echo "indexdb -vulns $$src/data/osv -out $(VULNDB)"; rm -rf $(VULNDB).partial; \
	  $(TOOL) indexdb -vulns $$src/data/osv -out $(VULNDB).partial && mv $(VULNDB).partial $(VULNDB) || exit 1; \
	fi
	@out=$$(mktemp); trap 'rm -f $$out' EXIT; for mod in $(GO_MODULES); do \
	  pkgs=./...; [ $$mod != ./tools ] || pkgs=; grep -q '^tool' $$mod/go.mod && pkgs="$$pkgs tool"; \
	  echo "govulncheck $$mod: $$pkgs"; \
	  (cd $$mod && $(TOOL) govulncheck -db file://$(VULNDB) -tags urfave_cli_no_docs $(VULNFLAGS) $$pkgs) >>$$out 2>&1; \
	  rc=$$?; [ $$rc = 0 ] || [ $$rc = 3 ] || { cat $$out; echo "make vuln: govulncheck failed in $$mod (exit $$rc)"; exit 1; }; \
	done; cat $$out; \
	found=$$(grep -oE '^Vulnerability #[0-9]+: GO-[0-9]+-[0-9]+' $$out | grep -oE 'GO-[0-9]+-[0-9]+' | sort -u); \
	new=$$(for id in $$found; do grep -qF "$$id" docs/security.md || echo $$id; done); \
	echo "make vuln: $$(echo $$found | wc -w) vulnerabilities called, $$(echo $$new | wc -w) not in docs/security.md"; \
	if [ -n "$$new" ]; then echo "make vuln: called and not listed in docs/security.md: $$new"; exit 1; fi

# The packages make test runs without the race detector, under it: with
# make test, every package (CI). Most of its time is compiling client-go
# and the Kubernetes API types under the race detector.
.PHONY: test-race
test-race: $(BIN)
	$(RACE_TEST) -timeout 15m $(other_pkgs)

# The integration package and the engine's unit tests, many times over with
# every core kept busy (integration/stress.sh says how many): a flake found
# here is an order of events a test leaves to chance. Takes a while; not CI.
.PHONY: test-stress
test-stress: $(BIN)
	integration/stress.sh $(CURDIR)/$(BIN)

# FUZZTIME per target: `make fuzz FUZZTIME=1m` for a longer hunt. CI gives
# a count instead (20000x): a duration races the Go fuzzing coordinator's
# deadline on a loaded machine (Go issue 75804, fixed in 1.27) and fails
# now and then with a bare "context deadline exceeded".
FUZZTIME ?= 30s
FUZZPKGS := ./supervisor/probe ./internal/signals ./supervisor/statusfile ./supervisor/peers \
            ./kube/inject ./kube/webhook/admission
fuzz:
	@for pkg in $(FUZZPKGS); do \
	  for target in $$($(GO) test $(TESTFLAGS) -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test $(TESTFLAGS) -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# Pods under `podman kube play` (needs podman, runc, busybox-static; .ci/run
# installs them).
# The real programs' Debian rootfs (mmdebstrap, about two minutes cold, then
# cached outside the checkout) is built first, outside the tests' timeout;
# without mmdebstrap those tests skip, or fail under TANDEM_E2E_REQUIRED.
e2e: build
	@if command -v mmdebstrap >/dev/null; then integration/e2e/realprog/rootfs.sh >/dev/null; fi
	TANDEM_BIN=$(CURDIR)/$(BIN) TANDEMCTL_BIN=$(CURDIR)/$(CTL) $(GO) test -count=1 -tags e2e -timeout 15m -v ./integration/e2e/

# Jobs on a real single-node Kubernetes (integration/k8s): brings the cluster
# up, runs the tests, tears it down whatever happened. Needs root, etcd,
# containerd, runc, the CNI plugins and podman (.ci/run installs them); the
# Kubernetes binaries are built once per release into ~/.cache/tandem-k8s
# (~8 min each), and containerd 2.x for the releases that need it.
# K8S_VERSION is the release (docs/compatibility.md); K8S_TESTFLAGS go to
# go test (e.g. K8S_TESTFLAGS='-run TestJob').
# The releases proved: the oldest has no native sidecars, the newest
# refuses containerd 1.x.
K8S_VERSIONS := v1.37.2 v1.32.2 v1.27.16
# The release CI runs whole (integration/k8s/env.sh has the same default).
K8S_VERSION  ?= v1.37.2
# What every release proves, even where CI does not run the whole suite:
# every example's Job, the webhook's injection, tandemctl check, and which
# mode --mode auto picks (and --mode native refused where it must be).
K8S_CORE     := ^Test(Job|Deployment|Webhook|Check|ModeAuto|EveryExampleIsPlayed)
e2e-k8s: build
	TANDEM_K8S_VERSION=$(K8S_VERSION) integration/k8s/e2e.sh $(CURDIR)/$(BIN) $(K8S_TESTFLAGS)

# The release whose core CI runs after the whole one: the oldest.
K8S_CI_CORE  := v1.27.16
# For .ci/run: the release it runs whole, then the one it runs the core of.
k8s-ci-versions:
	@echo $(K8S_VERSION) $(K8S_CI_CORE)

e2e-k8s-core: build
	TANDEM_K8S_VERSION=$(K8S_VERSION) integration/k8s/e2e.sh $(CURDIR)/$(BIN) -run '$(K8S_CORE)' $(K8S_TESTFLAGS)

# Every release in turn, each whole, each on its own cluster.
e2e-k8s-matrix: build
	@for v in $(K8S_VERSIONS); do \
	  echo "== Kubernetes $$v"; \
	  TANDEM_K8S_VERSION=$$v integration/k8s/e2e.sh $(CURDIR)/$(BIN) $(K8S_TESTFLAGS) || exit 1; \
	done

# Prints figures; never fails on time.
bench: build
	$(GO) run ./bench -tandem $(CURDIR)/$(BIN)

# The cluster's figures (docs/benchmarks.md): pods' start and Jobs' end side
# by side, tandem against the same pods without it. Minutes of measuring
# that assert only that every pod ran, so not in make e2e-k8s (CI).
bench-k8s: build
	TANDEM_K8S_VERSION=$(K8S_VERSION) TANDEM_K8S_TAGS=k8s,k8sbench integration/k8s/e2e.sh $(CURDIR)/$(BIN) -run '^TestRatio' $(K8S_TESTFLAGS)

clean:
	rm -rf bin dist
