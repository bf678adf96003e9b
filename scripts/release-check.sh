#!/usr/bin/env bash
# Checks .goreleaser.yaml and builds a snapshot release of every platform
# into dist/, as the release workflow would, without publishing anything.
# GoReleaser is installed from the Go module proxy at the version the
# workflow pins (the first install compiles it: a few minutes).
#
#   scripts/release-check.sh            # check, then build the snapshot
#   GORELEASER=/path/to/goreleaser scripts/release-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version=v2.15.1 # as in .github/workflows/release.yml
bin=${GORELEASER:-}
if [ -z "$bin" ]; then
  gobin="${XDG_CACHE_HOME:-$HOME/.cache}/transcriptsite/goreleaser-$version"
  if [ ! -x "$gobin/goreleaser" ]; then
    echo "installing goreleaser $version into $gobin"
    GOBIN="$gobin" go install "github.com/goreleaser/goreleaser/v2@$version"
  fi
  bin="$gobin/goreleaser"
fi

"$bin" check
"$bin" release --snapshot --clean --skip=publish

# Every platform has its archive, and each binary says its version.
for p in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64; do
  ext=tar.gz
  [[ $p == windows_* ]] && ext=zip
  ls dist/transcriptsite_*_"$p".$ext >/dev/null
done
host=$(go env GOOS)_$(go env GOARCH)
"$(ls -d dist/transcriptsite_"$host"*/ | head -1)transcriptsite" version | grep -E '^transcriptsite [0-9]+\.[0-9]+\.[0-9]+-next '
echo "release check: ok"
