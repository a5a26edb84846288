package main

import (
	"fmt"
	"io"
	"strings"
)

// progressBar draws a one-line bar on a terminal, redrawing only when the
// shown percentage changes so that a long run does not flood the output.
type progressBar struct {
	w     io.Writer
	label string
	width int
	last  int
}

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, label: label, width: 40, last: -1}
}

// update shows done of total.
func (p *progressBar) update(done, total int) {
	if total <= 0 {
		return
	}
	pct := done * 100 / total
	if pct == p.last {
		return
	}
	p.last = pct
	filled := p.width * done / total
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% (%d/%d)", p.label, strings.Repeat("#", filled), strings.Repeat(".", p.width-filled), pct, done, total)
}

// done ends the bar's line.
func (p *progressBar) done() {
	if p.last >= 0 {
		fmt.Fprintln(p.w)
	}
}
