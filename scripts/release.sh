#!/usr/bin/env bash
# release.sh vX.Y.Z tags a release of the library and of the installable
# example modules, as `go install MODULE/cmd/NAME@vX.Y.Z` needs them.
#
# Between releases each example module's go.mod replaces the library with
# the checkout beside it (`replace github.com/deploysync/deploysync => ../..`),
# so that a clone always builds against its own library. `go install
# pkg@version` refuses a module whose go.mod holds any replace directive, so
# the published go.mod must not: this script
#
#  1. tags HEAD as vX.Y.Z (the library; HEAD must be committed and clean);
#  2. on a detached commit on top of it, drops the replace from each module
#     of $modules, requires github.com/deploysync/deploysync vX.Y.Z and runs
#     `go mod tidy`, which records the library's checksums in go.sum; the
#     library at vX.Y.Z is fetched by the go command itself from this
#     repository's tag (git's url.insteadOf), so the go.sum lines are the
#     ones proxy.golang.org and sum.golang.org compute from the published tag;
#  3. refuses to go on if any replace directive is left in those go.mods;
#  4. tags that commit MODULE/vX.Y.Z for each module (the tag name the go
#     command looks for a module in a subdirectory).
#
# The branch is not moved: the release commit is reachable only from its
# tags, and the development go.mods keep their replace. Nothing is pushed;
# the script prints the push command. examples/cli/install_test.go runs this
# script on a clone and installs the CLI from the tags it made.
#
# Environment: RELEASE_MODULES overrides the list of modules (directories).
set -euo pipefail

version=${1:-}
if ! [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "usage: $0 vMAJOR.MINOR.PATCH[-PRERELEASE]" >&2
	exit 2
fi
case $version in
v0.* | v1.*) ;;
*)
	echo "$version: a major version >= 2 needs a /vN module path first" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")/.."
root=$(pwd)
lib=github.com/deploysync/deploysync
modules=(${RELEASE_MODULES:-examples/cli examples/controller})

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "the working tree has uncommitted changes: commit them first" >&2
	exit 1
fi
head=$(git rev-parse HEAD)
for tag in "$version" "${modules[@]/%//$version}"; do
	if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		echo "tag $tag exists already" >&2
		exit 1
	fi
done

git tag "$version" "$head"

tmp=$(mktemp -d)
done=
cleanup() {
	git -C "$root" worktree remove --force "$tmp/tree" >/dev/null 2>&1 || true
	rm -rf "$tmp"
	if [ -z "$done" ]; then
		echo "release $version failed: tag $version removed" >&2
		git -C "$root" tag -d "$version" >/dev/null
	fi
}
trap cleanup EXIT
git worktree add -q --detach "$tmp/tree" "$head"

# The go command fetches the library at $version from this repository: a
# private path (no proxy, no checksum database) whose https URL git rewrites
# to the local repository, where the tag is.
cat >"$tmp/gitconfig" <<EOF
[url "file://$root/"]
	insteadOf = https://$lib
[protocol "file"]
	allow = always
EOF
# (Only for the go commands: the commit below uses the user's own git config.)
local_go() { GIT_CONFIG_GLOBAL="$tmp/gitconfig" GOPRIVATE="$lib" go "$@"; }

for mod in "${modules[@]}"; do
	(
		cd "$tmp/tree/$mod"
		go mod edit -dropreplace="$lib" -require="$lib@$version"
		local_go mod tidy
		if go mod edit -json | grep -q '"Replace": \['; then
			echo "$mod/go.mod still holds a replace directive; go install $lib/$mod/...@$version would refuse it:" >&2
			grep -n replace go.mod >&2
			exit 1
		fi
	)
done

git -C "$tmp/tree" add -- "${modules[@]/%//go.mod}" "${modules[@]/%//go.sum}"
git -C "$tmp/tree" commit -q -m "release $version: ${modules[*]} require $lib $version (no replace)"
release=$(git -C "$tmp/tree" rev-parse HEAD)
for mod in "${modules[@]}"; do
	git tag "$mod/$version" "$release"
done
done=1

echo "tagged $version at $head and ${modules[*]/%//$version} at $release"
echo "publish with: git push origin $version ${modules[*]/%//$version}"
