#!/usr/bin/env bash
# api.sh writes the exported API of every public package of the library
# module to internal/testing/api/<package>.txt (declarations only, no doc prose;
# see internal/testing/api/main.go). Commit the listings with the change that
# alters the API, so the API change is a reviewed diff.
#
#   scripts/api.sh          regenerate the listings
#   scripts/api.sh -check   fail, printing the diff, if they are stale
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
"")
	rm -f internal/testing/api/*.txt
	go run ./internal/testing/api -o internal/testing/api
	;;
-check)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/committed" "$tmp/current"
	cp internal/testing/api/*.txt "$tmp/committed/" 2>/dev/null || true
	go run ./internal/testing/api -o "$tmp/current"
	# diff's file headers without their temporary files' times
	if ! (cd "$tmp" && diff -ru committed current | sed -E 's/^(---|\+\+\+) ([^\t]*)\t.*/\1 \2/'); then
		echo
		echo "The public API differs from internal/testing/api/*.txt (above: committed → current)."
		echo "If the change is intended, regenerate the listings and commit them:"
		echo "    scripts/api.sh"
		exit 1
	fi
	;;
*)
	echo "usage: scripts/api.sh [-check]" >&2
	exit 2
	;;
esac
