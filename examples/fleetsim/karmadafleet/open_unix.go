//go:build unix

package karmadafleet

import (
	"os"
	"syscall"
)

// openRegular opens file for reading without blocking on a FIFO (one
// swapped in after the check); the caller refuses it by its mode.
// O_NONBLOCK does not change how a regular file reads.
func openRegular(file string) (*os.File, error) {
	return os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
