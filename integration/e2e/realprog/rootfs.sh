#!/usr/bin/env bash
# rootfs.sh: the Debian root filesystem of the real-program e2e tests
# (postgres, pgbouncer, psql and pg_dump, nginx, curl, GNU tail), as a tar
# that `podman import` turns into an image. Usable by hand:
#
#     integration/e2e/realprog/rootfs.sh        # prints the tar's path
#
# The tar is cached outside the checkout, named by a hash of this script (so
# of the package list and every option below): a second run prints the path
# at once. Needs root and mmdebstrap; reaches Debian's archive through the
# mirrors this machine's apt already uses (or $REALPROG_MIRROR).
set -euo pipefail

suite=bookworm
# Only what the tests run: coreutils' tail, dash and util-linux' setpriv are
# Essential already.
packages=(postgresql postgresql-client pgbouncer nginx curl)
cache=${REALPROG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-realprog}
# A cold build takes a few minutes; a stuck mirror must not hold CI for ever.
bound=${REALPROG_BUILD_TIMEOUT:-15m}

hash=$(sha256sum "$0" | cut -c1-12)
tar=$cache/rootfs-$hash.tar
if [ -s "$tar" ]; then
  echo "$tar"
  exit 0
fi

# The host's own Debian sources (deb822 or one-line files naming the suite
# and Debian's archive, not a third party's), pasted into the build as they
# are, so no mirror is named here.
debian='debian-archive-keyring|^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z+]+://[^/[:space:]]+/debian(-security)?/?[[:space:]]'
mirrors=()
if [ -n "${REALPROG_MIRROR:-}" ]; then
  mirrors=("$REALPROG_MIRROR")
else
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -s "$f" ] && grep -qE "^[^#]*\b$suite\b" "$f" && grep -qE "$debian" "$f" && mirrors+=("$f")
  done
fi
if [ ${#mirrors[@]} -eq 0 ]; then
  echo "rootfs.sh: no apt source for $suite in /etc/apt; set REALPROG_MIRROR" >&2
  exit 1
fi

mkdir -p "$cache"
# Two runs at once build once: the second waits, then finds the tar.
exec 9>"$cache/.lock"
flock 9
if [ -s "$tar" ]; then
  echo "$tar"
  exit 0
fi

echo "rootfs.sh: building $tar (${packages[*]}; bound $bound)" >&2
start=$(date +%s)
partial=$tar.partial
# essential: the Essential:yes set (no apt, no init) plus the packages and
# their hard dependencies. Left out: documentation, translations, locale
# sources (initdb runs in the C locale), C headers, and postgres's JIT
# (LLVM and z3 are 130 MB of 360; without its provider postgres runs with JIT
# off). The package scripts' default cluster is removed: each test makes its
# own with initdb.
# A download can fail for a moment on a fresh machine (a mirror's hiccup):
# one more try, then the failure stands.
build() {
timeout "$bound" mmdebstrap --quiet --mode=root --variant=essential --format=tar \
  --include="$(IFS=,; echo "${packages[*]}")" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/i18n/locales/*' \
  --dpkgopt='path-exclude=/usr/share/i18n/charmaps/*' \
  --dpkgopt='path-exclude=/usr/lib/*/perl/*/CORE/*.h' \
  --dpkgopt='path-exclude=/usr/lib/*/libLLVM-*' \
  --dpkgopt='path-exclude=/usr/lib/*/libz3.so*' \
  --dpkgopt='path-exclude=/usr/lib/postgresql/*/lib/llvmjit*' \
  --dpkgopt='path-exclude=/usr/lib/postgresql/*/lib/bitcode/*' \
  --customize-hook='rm -rf "$1"/var/lib/postgresql/15/main "$1"/etc/postgresql/15/main' \
  "$suite" "$partial" "${mirrors[@]}"
}
if ! build; then
  echo "rootfs.sh: mmdebstrap failed; trying once more" >&2
  rm -f "$partial"
  build
fi
mv "$partial" "$tar"
# Older builds of this script are of no further use.
find "$cache" -maxdepth 1 -name 'rootfs-*.tar' ! -name "rootfs-$hash.tar" -delete
echo "rootfs.sh: built in $(( $(date +%s) - start ))s, $(du -h "$tar" | cut -f1)" >&2
echo "$tar"
