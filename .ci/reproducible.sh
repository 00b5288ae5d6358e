#!/usr/bin/env bash
# Proves `make release` reproducible (docs/releases.md): clones the commit
# twice into different paths, runs `make release VERSION=$VERSION` in each,
# and compares every file of the two dist/ byte for byte. The two builds
# share Go's build cache, so what is proved in CI's time is that neither the
# clone's path nor the link, SBOM and image steps leave a trace; with
# TANDEM_REPRO_COLD=1 the second clone gets an empty cache of its own and
# compiles everything again (about 25 min more on a loaded 2-core machine),
# which proves the compile too. Prints the files, their sizes and the
# time taken. With an argument, copies the first dist/ there (for
# integration/release). The module cache is shared: go.sum pins its content.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
keep=${1:-}
version=${VERSION:-v0.0.0-ci}
commit=$(git -C "$root" rev-parse HEAD)
work=$(mktemp -d /tmp/tandem-reproducible.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

release() { # release DIR [ENV...]: clone, check out the commit, make release
  local dir=$1; shift
  git clone -q "$root" "$dir"
  git -C "$dir" checkout -q --detach "$commit"
  echo "== make release VERSION=$version in $dir $*"
  (cd "$dir" && env "$@" make --no-print-directory release VERSION="$version" >"$dir.log" 2>&1) ||
    { tail -40 "$dir.log"; echo "make release failed in $dir (log above)"; exit 1; }
}
release "$work/one/tandem"
if [ "${TANDEM_REPRO_COLD:-}" = 1 ]; then
  release "$work/other/path/tandem" GOCACHE="$work/gocache"
else
  release "$work/other/path/tandem"
fi

one=$work/one/tandem/dist other=$work/other/path/tandem/dist
if ! diff <(cd "$one" && ls -A) <(cd "$other" && ls -A); then
  echo "not reproducible: the two dist/ hold different files"; exit 1
fi
differ=0
for f in "$one"/*; do
  name=${f##*/}
  if cmp -s "$f" "$other/$name"; then
    printf '%10d  %s  %s\n' "$(stat -c %s "$f")" "$(sha256sum <"$f" | cut -c1-16)" "$name"
  else
    echo "DIFFERS: $name"; differ=1
  fi
done
(cd "$one" && sha256sum --quiet -c SHA256SUMS)
[ $differ = 0 ] || { echo "not reproducible: $commit"; exit 1; }
[ -z "$keep" ] || { rm -rf "$keep"; cp -a "$one" "$keep"; }
echo "reproducible: two clones of $commit gave identical dist/ ($(ls "$one" | wc -l) files) in $(($(date +%s) - start)) s"
