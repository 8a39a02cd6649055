package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// commandExitCodes is the "Exit codes" section of each command's help:
// every code the command can return, and what it means there.
var commandExitCodes = map[string]string{
	"plan": `  0  the plan was printed
  1  an error: bad flags or input`,
	"history": `  0  the history was printed
  1  an error: bad flags or input`,
	"diagnose": `  0  the diagnosis was printed (nothing holds the rollout back, or causes)
  1  an error: bad flags or input (with -A: a Deployment Sync refuses)
  7  the input lacks ReplicaSets the Deployment refers to`,
	"simulate": `  0  the rollout completed, or is held at --max-updated
  1  an error: bad flags or input, a world over --max-pods
  2  an invariant broken by the controller (please report it)
  3  the rollout ended past its progress deadline
  4  the rollout stalled: nothing left to happen, not complete
  5  --max-steps reached while the rollout still goes
  6  the Deployment is paused: nothing rolls out`,
	"status": `  0  done (without --rule: kubectl rollout status's own codes, 0 also
     while it waits, as with --watch=false)
  1  an error; without --rule, a rollout past its progress deadline (as
     kubectl), or --watch's --timeout
  3  --rule: the tool fails the rollout (its progress deadline)
  7  --rule helm3 or strict: the input lacks ReplicaSets the Deployment
     refers to (the other rules read the Deployment alone)
  8  --rule: the tool would keep waiting (with --watch: at --timeout)`,
	"version": `  0  the versions were printed`,
	"diff": `  0  the manifest starts no rollout (nothing changes, or a scaling
     event, or a change outside the pod template)
  1  an error: bad flags or input, a cluster refusing a read or the dry run
 10  the manifest starts a rollout: a new ReplicaSet
 11  the manifest starts a rollout back to an existing ReplicaSet`,
}

// finishHelp gives every command the exit codes it returns and makes the
// help fit 80 columns: the text and the flags wrap.
func finishHelp(root *cobra.Command) {
	tmpl := root.UsageTemplate()
	tmpl = strings.ReplaceAll(tmpl, ".LocalFlags.FlagUsages", "(.LocalFlags.FlagUsagesWrapped 80)")
	tmpl = strings.ReplaceAll(tmpl, ".InheritedFlags.FlagUsages", "(.InheritedFlags.FlagUsagesWrapped 80)")
	root.SetUsageTemplate(tmpl)
	for _, c := range root.Commands() {
		codes, ok := commandExitCodes[c.Name()]
		if !ok {
			continue
		}
		long := c.Long
		if long == "" {
			long = c.Short + "."
		}
		c.Long = wrap(long + "\n\nExit codes:\n" + codes)
	}
	root.Long = wrap(root.Long)
}
