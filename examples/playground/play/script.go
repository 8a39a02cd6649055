package play

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deploysync/deploysync/simulate"
)

// ScriptError is a line of a script that does not parse.
type ScriptError struct {
	// Line is the 1-based line.
	Line int
	// Text is the line; Detail what is wrong.
	Text, Detail string
}

// Error names the line and what is wrong.
func (e *ScriptError) Error() string {
	return fmt.Sprintf("script line %d %q: %s", e.Line, e.Text, e.Detail)
}

// ParseScript reads the user's edits of the Deployment during a run, one a
// line, each a time from the start (a Go duration) and a kubectl-like
// command:
//
//	0s set image web=nginx:1.28   (kubectl set image)
//	3s scale 20                   (kubectl scale --replicas)
//	1s pause                      (kubectl rollout pause)
//	30s resume                    (kubectl rollout resume)
//	20s rollback                  (the deprecated rollback annotation, to the previous revision)
//	20s rollback 1                (... to revision 1)
//	5m40s annotate note=retry     (kubectl annotate --overwrite: any change brings the controller back)
//
// Blank lines and lines starting with # are skipped.
func ParseScript(script string) ([]simulate.Change, error) {
	var out []simulate.Change
	for i, raw := range strings.Split(script, "\n") {
		text := strings.TrimSpace(raw)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		bad := func(format string, args ...any) error {
			return &ScriptError{Line: i + 1, Text: text, Detail: fmt.Sprintf(format, args...)}
		}
		f := strings.Fields(text)
		at, err := time.ParseDuration(f[0])
		if err != nil || at < 0 {
			return nil, bad("want a time from the start first, such as 0s or 1m30s")
		}
		if len(f) < 2 {
			return nil, bad("want a command after the time: set image, scale, pause, resume, rollback or annotate")
		}
		switch cmd, args := f[1], f[2:]; {
		case cmd == "set" && len(args) == 2 && args[0] == "image":
			c, img, ok := strings.Cut(args[1], "=")
			if !ok || c == "" || img == "" {
				return nil, bad("want set image CONTAINER=IMAGE")
			}
			out = append(out, simulate.SetImage(at, c, img))
		case cmd == "scale" && len(args) == 1:
			n, err := strconv.ParseInt(args[0], 10, 32)
			if err != nil || n < 0 {
				return nil, bad("want scale REPLICAS, a number from 0")
			}
			out = append(out, simulate.SetReplicas(at, int32(n)))
		case cmd == "pause" && len(args) == 0:
			out = append(out, simulate.Pause(at))
		case cmd == "resume" && len(args) == 0:
			out = append(out, simulate.Resume(at))
		case cmd == "rollback" && len(args) <= 1:
			var rev int64
			if len(args) == 1 {
				if rev, err = strconv.ParseInt(args[0], 10, 64); err != nil || rev < 0 {
					return nil, bad("want rollback or rollback REVISION, a number from 0")
				}
			}
			out = append(out, simulate.RollbackTo(at, rev))
		case cmd == "annotate" && len(args) == 1:
			k, v, ok := strings.Cut(args[0], "=")
			if !ok || k == "" {
				return nil, bad("want annotate KEY=VALUE")
			}
			out = append(out, simulate.Annotate(at, k, v))
		default:
			return nil, bad("want set image CONTAINER=IMAGE, scale REPLICAS, pause, resume, rollback [REVISION] or annotate KEY=VALUE")
		}
	}
	return out, nil
}
