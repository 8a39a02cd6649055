package applier

import (
	"errors"
	"fmt"

	"k8s.io/client-go/discovery"

	"github.com/deploysync/deploysync"
)

// ServerVersion reads the apiserver's version (GET /version) and returns
// the Sync option that decides as that minor's Deployment controller, with
// the version string it read (e.g. "v1.34.4-eks-1a2b3c"). A minor the
// library does not support is an error that lists the supported ones: a
// controller started against it should stop rather than decide as another
// minor.
func ServerVersion(d discovery.ServerVersionInterface) (deploysync.Option, string, error) {
	info, err := d.ServerVersion()
	if err != nil {
		return nil, "", fmt.Errorf("reading the server's version: %w", err)
	}
	opt := deploysync.WithKubernetesVersion(info.GitVersion)
	// Sync checks the version before it looks at the state.
	var unsupported *deploysync.UnsupportedVersionError
	if _, err := deploysync.Sync(deploysync.State{}, opt); errors.As(err, &unsupported) {
		return nil, info.GitVersion, err
	}
	return opt, info.GitVersion, nil
}
