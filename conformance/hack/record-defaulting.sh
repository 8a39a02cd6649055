#!/usr/bin/env bash
# record-defaulting.sh records, for each Kubernetes minor given (default: all
# of 1.33 to 1.37), what that minor's apiserver create path stores for a
# fixed set of random Deployments, into
# conformance/testdata/defaulting/<minor>.jsonl.gz (see ../README.md).
#
#   bash conformance/hack/record-defaulting.sh [minor...]
#
# The inputs are drawn once, in this module, by package defaulting's
# generator (TestWriteMinorInputs, DEPLOYSYNC_DEFAULTING_INPUTS=path: the
# first 20,000 Deployments of seed 26; about 43 MB gzipped, kept in the
# scratch directory, never committed), and the accepted set
# (TestWriteAcceptedInputs, DEPLOYSYNC_DEFAULTING_ACCEPTED_INPUTS=path: the
# first 3,000 Deployments v1.37.2's validation accepts after the repair of
# repair_test.go), recorded into <minor>.accepted.jsonl.gz. For each minor other than
# 1.37 the script makes a scratch module (never committed, never built by
# CI) named like the conformance module, holding copies of package
# defaulting's upstream.go and of defaulting/record, with go.mod pinned to
# that minor's k8s.io/kubernetes and each staging module replaced by its
# published version of the same minor; it builds the recorder there and runs
# it on the inputs. 1.37 is recorded by this module itself.
#
# Environment:
#   DEPLOYSYNC_DEFAULTING_SCRATCH  scratch directory (default $TMPDIR/deploysync-defaulting)
#   DEPLOYSYNC_DEFAULTING_BUILD_ONLY=1  build the recorders, record nothing
set -euo pipefail

conf=$(cd "$(dirname "$0")/.." && pwd)
scratch=${DEPLOYSYNC_DEFAULTING_SCRATCH:-${TMPDIR:-/tmp}/deploysync-defaulting}
out=$conf/testdata/defaulting

# shellcheck source=scratch-module.sh
. "$conf/hack/scratch-module.sh"

mkdir -p "$scratch" "$out"
inputs=$scratch/inputs.jsonl.gz
accepted=$scratch/accepted.jsonl.gz
if { [ ! -f "$inputs" ] || [ ! -f "$accepted" ]; } && [ "${DEPLOYSYNC_DEFAULTING_BUILD_ONLY:-}" != 1 ]; then
	bash "$conf/hack/patch-apimachinery.sh"
	(cd "$conf" && DEPLOYSYNC_DEFAULTING_INPUTS=$inputs DEPLOYSYNC_DEFAULTING_ACCEPTED_INPUTS=$accepted \
		go test ./defaulting -run '^TestWrite(Minor|Accepted)Inputs$' -count=1)
fi
# Each minor's corpora (testdata/minors/<minor>) give that minor a third
# set: their distinct Deployments (TestWriteCorporaInputs), recorded into
# <minor>.corpora.jsonl.gz; the fourth is 1,000 updates of stored accepted
# Deployments (TestWriteUpdateInputs), through the update path with
# record -update, into <minor>.update.jsonl.gz. Both are cheap to draw, so
# always drawn again.
if [ "${DEPLOYSYNC_DEFAULTING_BUILD_ONLY:-}" != 1 ]; then
	bash "$conf/hack/patch-apimachinery.sh"
	(cd "$conf" && DEPLOYSYNC_DEFAULTING_CORPORA_INPUTS=$scratch DEPLOYSYNC_DEFAULTING_UPDATE_INPUTS=$scratch/updates.jsonl.gz \
		go test ./defaulting -run '^TestWrite(Corpora|Update)Inputs$' -count=1)
fi
minors_or_all "$@"
for m in "${minors[@]}"; do
	kube=$(upstream_of "$m")
	staging=$(staging_of "$kube")
	dir=$scratch/$m
	start=$(date +%s)
	echo "record-defaulting: $m: k8s.io/kubernetes $kube in $dir"
	mkdir -p "$dir"
	if [ "$m" = 1.37 ]; then
		bash "$conf/hack/patch-apimachinery.sh"
		(cd "$conf" && go build -o "$dir/record" ./defaulting/record)
	else
		rm -rf "$dir/defaulting"
		mkdir -p "$dir/defaulting/record"
		cp "$conf/defaulting/upstream.go" "$dir/defaulting/"
		cp "$conf/defaulting/record/main.go" "$dir/defaulting/record/"
		write_gomod "$dir" "$kube" "$staging" "" record-defaulting.sh
		(cd "$dir" && go mod tidy && go build -o record ./defaulting/record)
	fi
	built=$(date +%s)
	echo "record-defaulting: $m: recorder built in $((built - start))s"
	if [ "${DEPLOYSYNC_DEFAULTING_BUILD_ONLY:-}" = 1 ]; then
		continue
	fi
	"$dir/record" -in "$inputs" -out "$out/$m.jsonl.gz"
	"$dir/record" -in "$accepted" -out "$out/$m.accepted.jsonl.gz"
	"$dir/record" -in "$scratch/corpora-$m.jsonl.gz" -out "$out/$m.corpora.jsonl.gz"
	"$dir/record" -update -in "$scratch/updates.jsonl.gz" -out "$out/$m.update.jsonl.gz"
	echo "record-defaulting: $m: recorded in $(($(date +%s) - built))s"
done
