package cli_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	libPath = "github.com/deploysync/deploysync"
	cliPkg  = libPath + "/examples/cli/cmd/kubectl-deploysync"
)

// TestInstallAtVersion publishes the repository as scripts/release.sh would,
// without a network: it snapshots the working tree into a temporary git
// repository, runs the release script there at a version no one else uses,
// and installs the plugin with the command the README gives for a published
// version,
//
//	go install github.com/deploysync/deploysync/examples/cli/cmd/kubectl-deploysync@VERSION
//
// with the go command fetching github.com/deploysync/deploysync from that
// repository (git's url.insteadOf; GOPRIVATE keeps it off the proxy and the
// checksum database) exactly as it fetches a published tag: the library at
// tag VERSION, the CLI at tag examples/cli/VERSION. Every other module comes
// from the module cache or the usual GOPROXY. The installed binary must give
// the output of the command built into this test. It also installs a tag of
// the development go.mod (which replaces the library with ../..), which the
// go command must refuse, so the check can fail.
//
// It uses the module cache in place (a separate one would make the build
// cache cold for all of client-go) and removes the versions it added.
func TestInstallAtVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin from a release made in a temporary repository (-short)")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// Outside a clone (the module extracted from a module zip) there is no
	// repository to release.
	if top, err := runCmd(root, nil, "git", "rev-parse", "--show-toplevel"); err != nil || !sameDir(strings.TrimSpace(top), root) {
		t.Skipf("%s is not the top of a git work tree: nothing to release", root)
	}
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	version := fmt.Sprintf("v0.0.0-installtest.%d", time.Now().UnixNano())
	devVersion := version + ".replace"

	gomodcache := strings.TrimSpace(mustRun(t, root, nil, "go", "env", "GOMODCACHE"))
	t.Cleanup(func() { removeVersions(t, gomodcache, version, devVersion) })

	snapshot(t, root, repo)
	ident := []string{"GIT_AUTHOR_NAME=install test", "GIT_AUTHOR_EMAIL=install-test@example.invalid",
		"GIT_COMMITTER_NAME=install test", "GIT_COMMITTER_EMAIL=install-test@example.invalid"}
	goEnv := []string{"GOFLAGS=-modcacherw", "GOWORK=off", "GOTOOLCHAIN=local"}
	mustRun(t, repo, append(append(ident, goEnv...), "RELEASE_MODULES=examples/cli"), "bash", "scripts/release.sh", version)
	// The development commit, as it would be tagged by hand without the
	// release script.
	mustRun(t, repo, ident, "git", "tag", "examples/cli/"+devVersion, version)

	gitconfig := filepath.Join(tmp, "gitconfig")
	if err := os.WriteFile(gitconfig, []byte(fmt.Sprintf("[url \"file://%s/\"]\n\tinsteadOf = https://%s\n[protocol \"file\"]\n\tallow = always\n", repo, libPath)), 0o644); err != nil {
		t.Fatal(err)
	}
	gobin := filepath.Join(tmp, "bin")
	env := append(goEnv, "GIT_CONFIG_GLOBAL="+gitconfig, "GOPRIVATE="+libPath, "GONOPROXY="+libPath, "GONOSUMDB="+libPath, "GOBIN="+gobin)

	// Outside any module, as a user runs it.
	out, err := runCmd(tmp, env, "go", "install", cliPkg+"@"+devVersion)
	if err == nil || !strings.Contains(out, "replace directives") {
		t.Errorf("go install of a tag whose go.mod holds the replace: want the go command's refusal (replace directives), got err %v:\n%s", err, out)
	}

	start := time.Now()
	mustRun(t, tmp, env, "go", "install", cliPkg+"@"+version)
	t.Logf("go install %s@%s: %v", cliPkg, version, time.Since(start).Round(time.Millisecond))
	bin := filepath.Join(gobin, "kubectl-deploysync")

	args := []string{"plan", "-f", "testdata/rollout.yaml", "--now", now}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	want := run(t, args...)
	if want.err != nil {
		t.Fatalf("plan in process: %v", want.err)
	}
	if string(got) != want.stdout || want.stdout == "" {
		t.Errorf("the installed binary's %q differs from the command's:\ninstalled:\n%s\nin process:\n%s", args, got, want.stdout)
	}
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// snapshot makes dst a git repository whose HEAD holds the files of the
// working tree at src (tracked and untracked, less ignored ones), so that
// the test installs what is being tested rather than the last commit.
func snapshot(t *testing.T, src, dst string) {
	t.Helper()
	mustRun(t, src, nil, "git", "clone", "-q", "--no-checkout", src, dst)
	list := mustRun(t, src, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		from := filepath.Join(src, name)
		info, err := os.Lstat(from)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dst, nil, "git", "add", "-A")
	mustRun(t, dst, []string{"GIT_AUTHOR_NAME=install test", "GIT_AUTHOR_EMAIL=install-test@example.invalid",
		"GIT_COMMITTER_NAME=install test", "GIT_COMMITTER_EMAIL=install-test@example.invalid"},
		"git", "commit", "-q", "--allow-empty", "-m", "the working tree under test")
}

// removeVersions deletes what the go command stored in the module cache for
// the test's versions of the library and the CLI.
func removeVersions(t *testing.T, gomodcache string, versions ...string) {
	for _, mod := range []string{libPath, libPath + "/examples/cli"} {
		dl := filepath.Join(gomodcache, "cache", "download", filepath.FromSlash(mod), "@v")
		for _, v := range versions {
			dirs, _ := filepath.Glob(filepath.Join(gomodcache, filepath.FromSlash(mod)+"@"+v))
			files, _ := filepath.Glob(filepath.Join(dl, v+".*"))
			for _, p := range append(dirs, files...) {
				// Extracted modules are read-only unless -modcacherw made them.
				_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
					if err == nil && d.IsDir() {
						_ = os.Chmod(path, 0o755)
					}
					return nil
				})
				if err := os.RemoveAll(p); err != nil {
					t.Errorf("cleaning the module cache: %v", err)
				}
			}
		}
		listFile := filepath.Join(dl, "list")
		b, err := os.ReadFile(listFile)
		if err != nil {
			continue
		}
		var keep []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			drop := false
			for _, v := range versions {
				drop = drop || line == v
			}
			if !drop && line != "" {
				keep = append(keep, line)
			}
		}
		content := ""
		if len(keep) > 0 {
			content = strings.Join(keep, "\n") + "\n"
		}
		if content != string(b) {
			_ = os.WriteFile(listFile, []byte(content), 0o644)
		}
	}
}

// runCmd runs name with args in dir with env added to the test's
// environment, and returns its combined output.
func runCmd(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runCmd(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}
