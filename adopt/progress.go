package adopt

import (
	"fmt"
	"io"
	"strings"
)

// ProgressBar returns an Options.Progress function that draws a one-line
// bar on w (meant for stderr when it is a terminal): "plan  [#####.....] 12/200",
// redrawn in place with a carriage return, ending the line when a phase
// completes.
func ProgressBar(w io.Writer) func(phase string, done, total int) {
	return func(phase string, done, total int) {
		const width = 30
		filled := 0
		if total > 0 {
			filled = done * width / total
		}
		fmt.Fprintf(w, "\r%-5s [%s%s] %d/%d", phase, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
		if done == total {
			fmt.Fprint(w, "\n")
		}
	}
}
