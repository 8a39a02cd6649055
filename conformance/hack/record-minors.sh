#!/usr/bin/env bash
# record-minors.sh records, for each Kubernetes minor given (default: all of
# 1.33 to 1.37), what that minor's real upstream code does on a fixed set of
# states, into conformance/testdata/minors/<minor>/ (see ../README.md).
#
#   bash conformance/hack/record-minors.sh [minor...]
#
# For each minor it makes a scratch module (never committed, never built by
# CI) named like the conformance module and holding copies of packages
# upstream, minors and minors/oracle, with go.mod pinned to that minor's
# k8s.io/kubernetes, each staging module replaced by its published version of
# the same minor, and k8s.io/apimachinery by a copy patched as
# patch-apimachinery.sh patches v0.37.2. It builds the oracle there, then runs
# the recorder (go run ./minors/record, in the conformance module, on the
# library's generators) against it.
#
# Environment:
#   DEPLOYSYNC_MINORS_SCRATCH  scratch directory (default $TMPDIR/deploysync-minors)
#   DEPLOYSYNC_MINORS_OUT      corpus directory (default conformance/testdata/minors)
#   DEPLOYSYNC_MINORS_BUILD_ONLY=1  build the oracles, record nothing (suite's
#                              TestLiveMinors builds them so, DEPLOYSYNC_LIVE_ALL=1)
#
# The oracle links that minor's k8s.io/kubectl too (a staging module of the
# release, so replaced by its published version like the others): the
# corpus's kubectl.jsonl.gz holds its answers.
#
# The corpus is byte-identical from run to run (fixed seeds, sorted, no
# times, gzip without name or mtime); suite's TestRecordDeterministic checks it
# when DEPLOYSYNC_RECORD_TWICE=<minor> is set.
set -euo pipefail

conf=$(cd "$(dirname "$0")/.." && pwd)
scratch=${DEPLOYSYNC_MINORS_SCRATCH:-${TMPDIR:-/tmp}/deploysync-minors}
out=${DEPLOYSYNC_MINORS_OUT:-$conf/testdata/minors}

# shellcheck source=scratch-module.sh
. "$conf/hack/scratch-module.sh"

# makemodule writes the scratch module of one minor into $1.
makemodule() {
	local dir=$1 kube=$2 staging=$3
	rm -rf "$dir/upstream" "$dir/minors"
	mkdir -p "$dir/upstream" "$dir/minors/oracle"
	for f in "$conf"/upstream/*.go; do
		case "$f" in *_test.go) continue ;; esac
		cp "$f" "$dir/upstream/"
	done
	cp "$conf"/minors/minors.go "$dir/minors/"
	cp "$conf"/minors/oracle/*.go "$dir/minors/oracle/"
	bash "$conf/hack/patch-apimachinery.sh" "$staging" "$dir/_patched/apimachinery"
	write_gomod "$dir" "$kube" "$staging" ./_patched/apimachinery record-minors.sh
}

mkdir -p "$scratch"
minors_or_all "$@"
for m in "${minors[@]}"; do
	kube=$(upstream_of "$m")
	staging=$(staging_of "$kube")
	dir="$scratch/$m"
	start=$(date +%s)
	echo "record-minors: $m: k8s.io/kubernetes $kube in $dir"
	mkdir -p "$dir"
	if [ "$m" = 1.37 ]; then
		# The conformance module itself is pinned to v1.37.2.
		bash "$conf/hack/patch-apimachinery.sh"
		(cd "$conf" && go build -o "$dir/oracle" ./minors/oracle)
	else
		makemodule "$dir" "$kube" "$staging"
		(cd "$dir" && go mod tidy && go build -o oracle ./minors/oracle)
	fi
	built=$(date +%s)
	echo "record-minors: $m: oracle built in $((built - start))s"
	if [ "${DEPLOYSYNC_MINORS_BUILD_ONLY:-}" = 1 ]; then
		continue
	fi
	rm -rf "$out/$m"
	mkdir -p "$out/$m"
	(cd "$conf" && go run ./minors/record -minor "$m" -oracle "$dir/oracle" -out "$out/$m")
	echo "record-minors: $m: recorded in $(($(date +%s) - built))s"
done
