#!/usr/bin/env bash
# patch-apimachinery.sh prepares conformance/_patched/apimachinery: a copy of
# k8s.io/apimachinery@v0.37.2 whose metav1.Now consults a settable hook, so the
# upstream runner can pin the time that upstream stamps on conditions.
#
# Usage: patch-apimachinery.sh [version [dest]]. Without arguments it prepares
# the copy the conformance module uses (v0.37.2 into conformance/_patched);
# record-minors.sh passes an older version and a scratch directory.
#
# The copy is taken from the Go module cache (downloaded first if needed) and
# patched mechanically. The script is idempotent: a finished copy carrying the
# marker file for the same version is left alone.
set -euo pipefail

version=${1:-v0.37.2}
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${2:-"$here/_patched/apimachinery"}
marker="$dest/.deploysync-patched"

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$version" ]; then
	exit 0
fi

# Ask the go command where the pristine module lives. Run outside any module so
# the conformance go.mod (whose replacement may not exist yet) is not consulted.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$(cd "$tmp" && GOWORK=off GOFLAGS= go mod download -json "k8s.io/apimachinery@$version") || {
	echo "patch-apimachinery: go mod download failed:" >&2
	echo "$json" >&2
	exit 1
}
src=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
if [ -z "$src" ] || [ ! -d "$src" ]; then
	echo "patch-apimachinery: cannot locate k8s.io/apimachinery@$version in the module cache" >&2
	exit 1
fi

stage="$tmp/apimachinery"
cp -R "$src" "$stage"
chmod -R u+w "$stage"

file="$stage/pkg/apis/meta/v1/time.go"
# Make Now consult a hook declared at the end of the file. The awk program
# fails if Now does not have the expected shape, so a change is noticed.
awk '
	/^func Now\(\) Time [{]$/ {
		print
		innow = 1
		next
	}
	innow && /^\treturn Time[{]time[.]Now\(\)[}]$/ {
		print "\tif NowHook != nil {"
		print "\t\treturn Time{NowHook()}"
		print "\t}"
		print
		innow = 0
		patched = 1
		next
	}
	{ print }
	END {
		if (!patched) exit 3
		print ""
		print "// NowHook, when non-nil, replaces the wall clock in Now."
		print "// Added by deploysync conformance/hack/patch-apimachinery.sh."
		print "var NowHook func() time.Time"
	}
' "$file" >"$file.new" || {
	echo "patch-apimachinery: metav1.Now has an unexpected shape in $file" >&2
	exit 1
}
mv "$file.new" "$file"
"$(go env GOROOT)/bin/gofmt" -l "$file" | grep -q . && {
	echo "patch-apimachinery: patched time.go is not gofmt-clean" >&2
	exit 1
}
echo "$version" >"$stage/.deploysync-patched"

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$stage" "$dest"
echo "patch-apimachinery: wrote $dest"
