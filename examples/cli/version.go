package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/kubectl"
)

// kubernetesVersion is --kubernetes-version, or the library's default minor.
func (g *globals) kubernetesVersion() string {
	if g.version == "" {
		return defaultMinor()
	}
	return g.version
}

// defaultMinor is the library's default Kubernetes minor: the newest.
func defaultMinor() string {
	vs := deploysync.KubernetesVersions()
	return vs[len(vs)-1]
}

// checkVersion refuses a --kubernetes-version the library does not support,
// before any work, with the library's message (which lists the minors).
func (g *globals) checkVersion() error {
	if g.version == "" {
		return nil
	}
	// ComputeHashFor parses the version as WithKubernetesVersion does.
	if _, err := deployutil.ComputeHashFor(g.version, &corev1.PodTemplateSpec{}, nil); err != nil {
		return fmt.Errorf("--kubernetes-version: %w", err)
	}
	return nil
}

// RolloutHistoryFor is [RolloutHistory] as the kubectl of a Kubernetes minor
// prints it ([kubectl.HistoryTextFor]); version is one of
// deploysync.KubernetesVersions or a server version of one.
func RolloutHistoryFor(version string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) string {
	text, err := kubectl.HistoryTextFor(version, d, rss, 0)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return text
}

// libraryModule is the module path of the deploysync library.
const libraryModule = "github.com/deploysync/deploysync"

// jsonVersion is version's machine-readable form.
type jsonVersion struct {
	// CLI and Library are module versions as the Go build recorded them:
	// a tag (v1.2.3), a pseudo-version, or (devel) / the replace target
	// for a build from a clone.
	CLI     string `json:"cli"`
	Library string `json:"library"`
	// KubernetesVersion is the minor the commands decide as without
	// --kubernetes-version; KubernetesVersions every minor they accept.
	KubernetesVersion  string   `json:"kubernetesVersion"`
	KubernetesVersions []string `json:"kubernetesVersions"`
	GoVersion          string   `json:"goVersion"`
}

// buildVersions reads the versions of the CLI and the library from the
// binary's build information.
func buildVersions() jsonVersion {
	v := jsonVersion{CLI: "unknown", Library: "unknown", KubernetesVersion: defaultMinor(), KubernetesVersions: deploysync.KubernetesVersions()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = info.GoVersion
	v.CLI = info.Main.Version
	for _, dep := range info.Deps {
		if dep.Path != libraryModule {
			continue
		}
		v.Library = dep.Version
		if dep.Replace != nil {
			v.Library += " (replaced by " + dep.Replace.Path + ")"
		}
	}
	if info.Main.Path == libraryModule { // built inside the library's module
		v.Library = info.Main.Version
	}
	return v
}

func versionCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "The versions of the plugin, the library and the default minor",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			v := buildVersions()
			if g.version != "" {
				if err := g.checkVersion(); err != nil {
					return err
				}
				v.KubernetesVersion = g.kubernetesVersion()
			}
			if output != "text" {
				return writeStructured(cmd.OutOrStdout(), output, v)
			}
			_, err := fmt.Fprint(cmd.OutOrStdout(), wrapIndent(fmt.Sprintf(`kubectl-deploysync: %s
library:            %s %s
Kubernetes minor:   %s (decides as that minor's kube-controller-manager and
                    kubectl; --kubernetes-version takes %s)
Go:                 %s
`, v.CLI, libraryModule, v.Library, v.KubernetesVersion, strings.Join(v.KubernetesVersions, ", "), v.GoVersion), "                    "))
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", outputHelp)
	return cmd
}
