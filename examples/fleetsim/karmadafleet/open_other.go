//go:build !unix

package karmadafleet

import "os"

// openRegular opens file for reading; the caller checks its mode.
func openRegular(file string) (*os.File, error) {
	return os.Open(file)
}
