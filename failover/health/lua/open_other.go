//go:build !unix

package lua

import "io/fs"

// openFile opens name in fsys; loadFile checked and checks again that it is
// a regular file.
func openFile(fsys fs.FS, name string) (fs.File, error) {
	return fsys.Open(name)
}
