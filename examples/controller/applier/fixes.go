package applier

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deploysync/deploysync"
)

// Fixes is a command-line flag (a [flag.Value]) naming the
// [deploysync.Fix]es a controller turns on: `--fix NAME`, repeated or
// comma-separated (`--fix StaleDesiredReplicas,UnhealthyFirst`). A name is
// a Fix without its Go prefix, as [deploysync.Fixes] spells it; an unknown
// or empty name is refused with the list of known ones. A name given twice
// counts once. The zero value is an empty list: decide as upstream.
type Fixes []deploysync.Fix

// String returns the names, comma-separated, in the order given.
func (f *Fixes) String() string {
	if f == nil {
		return ""
	}
	names := make([]string, len(*f))
	for i, x := range *f {
		names[i] = string(x)
	}
	return strings.Join(names, ",")
}

// Set adds the comma-separated names of value.
func (f *Fixes) Set(value string) error {
	known := deploysync.Fixes()
	for name := range strings.SplitSeq(value, ",") {
		name = strings.TrimSpace(name)
		fix := deploysync.Fix(name)
		if !slices.Contains(known, fix) {
			return fmt.Errorf("unknown fix %q; known fixes: %s", name, KnownFixes())
		}
		if !slices.Contains(*f, fix) {
			*f = append(*f, fix)
		}
	}
	return nil
}

// KnownFixes is the comma-separated list of the names [Fixes.Set] accepts,
// for a flag's usage line.
func KnownFixes() string {
	known := deploysync.Fixes()
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
