#!/usr/bin/env bash
# record-replicaset.sh records, for each Kubernetes minor given (default: all
# of 1.33 to 1.37), what that minor's ReplicaSet controller
# (pkg/controller/replicaset, one syncReplicaSet) does on a fixed set of
# states, into conformance/testdata/replicaset/<minor>.replicaset.jsonl.gz
# (see ../README.md).
#
#   bash conformance/hack/record-replicaset.sh [minor...]
#
# The inputs are drawn once, in this module, by package rsupstream
# (TestWriteRecordInputs: the named scenarios, each with its own gate value
# and at the minor's default, and randomInput on seeds 1 to 3,000, kept in
# the scratch directory, never committed). For each minor other than 1.37
# the script makes a scratch module (never committed, never built by CI)
# named like the conformance module, holding copies of package
# rsupstream's non-test files and of rsupstream/record, with go.mod pinned
# to that minor's k8s.io/kubernetes, each staging module replaced by its
# published version of the same minor and k8s.io/apimachinery by a copy
# patched as patch-apimachinery.sh patches v0.37.2 (metav1.Now pinned). The
# controller's unexported fields differ between minors; the build tag
# rs_v1_33, rs_v1_34 or rs_v1_35 picks rsupstream's fields file for them.
# The recorder is built there (only that minor's fields file copied) and
# run on the inputs. 1.37 is recorded by
# this module itself.
#
# Environment:
#   DEPLOYSYNC_RS_SCRATCH  scratch directory (default $TMPDIR/deploysync-rsminors)
set -euo pipefail

conf=$(cd "$(dirname "$0")/.." && pwd)
scratch=${DEPLOYSYNC_RS_SCRATCH:-${TMPDIR:-/tmp}/deploysync-rsminors}
out=$conf/testdata/replicaset

# shellcheck source=scratch-module.sh
. "$conf/hack/scratch-module.sh"

mkdir -p "$scratch" "$out"
inputs=$scratch/inputs.jsonl.gz
bash "$conf/hack/patch-apimachinery.sh"
(cd "$conf" && DEPLOYSYNC_RS_RECORD_INPUTS=$inputs go test ./rsupstream -run '^TestWriteRecordInputs$' -count=1)

minors_or_all "$@"
for m in "${minors[@]}"; do
	kube=$(upstream_of "$m")
	staging=$(staging_of "$kube")
	dir=$scratch/$m
	start=$(date +%s)
	echo "record-replicaset: $m: k8s.io/kubernetes $kube in $dir"
	mkdir -p "$dir"
	if [ "$m" = 1.37 ]; then
		(cd "$conf" && go build -o "$dir/record" ./rsupstream/record)
	else
		# go mod tidy reads every file whatever its build tags, so only the
		# minor's own fields file is copied.
		case "$m" in
		1.33) tags=rs_v1_33 fields=fields_1.33.go ;;
		1.34 | 1.35) tags=rs_v${m/./_} fields=fields_1.34.go ;;
		*) tags= fields=fields.go ;;
		esac
		rm -rf "$dir/rsupstream"
		mkdir -p "$dir/rsupstream/record"
		for f in "$conf"/rsupstream/*.go; do
			case "$f" in *_test.go | */fields*.go) continue ;; esac
			cp "$f" "$dir/rsupstream/"
		done
		cp "$conf/rsupstream/$fields" "$dir/rsupstream/"
		cp "$conf/rsupstream/record/main.go" "$dir/rsupstream/record/"
		bash "$conf/hack/patch-apimachinery.sh" "$staging" "$dir/_patched/apimachinery"
		write_gomod "$dir" "$kube" "$staging" ./_patched/apimachinery record-replicaset.sh
		(cd "$dir" && go mod tidy && go build -tags "$tags" -o record ./rsupstream/record)
	fi
	built=$(date +%s)
	echo "record-replicaset: $m: recorder built in $((built - start))s"
	"$dir/record" -in "$inputs" -out "$out/$m.replicaset.jsonl.gz"
	echo "record-replicaset: $m: recorded in $(($(date +%s) - built))s, $(wc -c <"$out/$m.replicaset.jsonl.gz") bytes"
done
