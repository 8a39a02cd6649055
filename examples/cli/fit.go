package cli

import (
	"strings"
	"unicode/utf8"
)

// width is the terminal width text output fits: lines of prose wrap, table
// cells are cut; -o json and -o yaml carry the full text.
const width = 80

// wrap breaks every line of s longer than width at spaces. A continuation
// line is indented under the line's text: past its leading spaces and a
// list marker ("- ", "1. "), so that a wrapped plan action or cause reads as
// one item. A word longer than the line stays whole.
func wrap(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, line := range lines {
		out = append(out, wrapLine(line, hangingIndent(line))...)
	}
	return strings.Join(out, "\n")
}

// wrapIndent is wrap with continuation lines indented by indent.
func wrapIndent(s, indent string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, line := range lines {
		out = append(out, wrapLine(line, indent)...)
	}
	return strings.Join(out, "\n")
}

// hangingIndent is the indentation of a line's continuation: its leading
// spaces, plus the width of a list marker that follows them.
func hangingIndent(line string) string {
	rest := strings.TrimLeft(line, " ")
	n := len(line) - len(rest)
	switch {
	case strings.HasPrefix(rest, "- "):
		n += 2
	default:
		// "12. " as diagnose numbers its causes.
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && strings.HasPrefix(rest[i:], ". ") {
			n += i + 2
		}
	}
	if n > width/2 {
		n = 4
	}
	return strings.Repeat(" ", n)
}

func wrapLine(line, indent string) []string {
	var out []string
	prefix := ""
	for runes(prefix+line) > width {
		avail := width - runes(prefix)
		cut := breakAt(line, avail)
		if cut <= 0 {
			break
		}
		out = append(out, prefix+strings.TrimRight(line[:cut], " "))
		line = strings.TrimLeft(line[cut:], " ")
		prefix = indent
	}
	return append(out, prefix+line)
}

// breakAt returns the byte offset of the last space at or before avail
// runes of s, past its leading spaces (0: none).
func breakAt(s string, avail int) int {
	lead := len(s) - len(strings.TrimLeft(s, " "))
	best, n := 0, 0
	for i, r := range s {
		if n > avail {
			break
		}
		if r == ' ' && i > lead {
			best = i
		}
		n++
	}
	return best
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// cut shortens s to at most n runes, ending it with "…" when cut.
func cut(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// fitColumn cuts the last column of tabwriter output so every line fits
// width: the column starts where the header's last column starts.
func fitColumn(table string) string {
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) == 0 {
		return table
	}
	header := lines[0]
	start := strings.LastIndex(strings.TrimRight(header, " "), "  ")
	if start < 0 {
		return table
	}
	start += 2
	for start < len(header) && header[start] == ' ' {
		start++
	}
	if start >= width-10 {
		return table
	}
	for i, l := range lines {
		if runes(l) > width && len(l) > start {
			lines[i] = l[:start] + cut(l[start:], width-runes(l[:start]))
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// fitTimeline fits simulate's table: a row wider than width keeps its
// numbers on the line and moves its changes and writes (the last column)
// to the next line, indented and wrapped; where the numbers alone are too
// wide (three ReplicaSet columns or more), the PROGRESSING column moves
// down with them.
func fitTimeline(table string) string {
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	col, pcol := -1, -1
	for _, l := range lines {
		if i := strings.Index(l, "CHANGES AND WRITES"); i > 0 && strings.HasPrefix(l, "STEP") {
			col, pcol = i, strings.Index(l, "PROGRESSING")
			break
		}
	}
	if col < 0 || pcol < 0 {
		return table
	}
	split := col
	for _, l := range lines {
		if runes(strings.TrimRight(l[:min(col, len(l))], " ")) > width {
			split = pcol
		}
	}
	var out []string
	for _, l := range lines {
		isRow := strings.HasPrefix(l, "STEP") || len(l) > 0 && l[0] >= '0' && l[0] <= '9'
		if !isRow || split == col && runes(strings.TrimRight(l, " ")) <= width || len(l) <= split {
			out = append(out, strings.TrimRight(l, " "))
			continue
		}
		rest := strings.Join(strings.Fields(l[split:]), " ")
		if split == pcol && len(l) > col {
			rest = strings.TrimSpace(l[pcol:col]) + "; " + strings.TrimSpace(l[col:])
			rest = strings.TrimSuffix(rest, "; ")
		}
		if strings.HasPrefix(l, "STEP") {
			rest = strings.TrimSpace(strings.ReplaceAll(l[split:], "  ", " "))
			rest = strings.Join(strings.Fields(rest), " ")
			if split == pcol {
				rest = "PROGRESSING; CHANGES AND WRITES"
			}
		}
		out = append(out, strings.TrimRight(l[:split], " "))
		if rest != "" {
			out = append(out, wrapLine("      "+rest, "        ")...)
		}
	}
	return strings.Join(out, "\n") + "\n"
}
