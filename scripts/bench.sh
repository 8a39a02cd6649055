#!/usr/bin/env bash
# bench.sh runs every benchmark of docs/benchmark.md with -count 10 and prints the
# benchstat tables: the library's own benchmarks, and upstream's controller
# beside deploysync on identical inputs (the conformance module).
# Raw results land in bench-out/ (git-ignored). COUNT=n changes the count.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-10}
out=bench-out
mkdir -p "$out"
benchstat() { go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$@"; }

go test -run '^$' -bench . -benchmem -count "$count" . ./deployutil ./scaling ./simulate | tee "$out/library.txt"
bash conformance/hack/patch-apimachinery.sh
(cd conformance && go test -run '^$' -bench . -benchmem -count "$count" ./bench) | tee "$out/side-by-side.txt"

echo; echo "== library"; benchstat "$out/library.txt"
echo; echo "== upstream beside deploysync"; benchstat -col /impl "$out/side-by-side.txt"
