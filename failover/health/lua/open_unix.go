//go:build unix

package lua

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
)

// openFile opens name in fsys. A file system made by os.DirFS is opened
// through the operating system with O_NONBLOCK, so that a FIFO without a
// writer does not block the open (the caller refuses it by its mode);
// O_NONBLOCK does not change how a regular file reads. Other file systems
// are opened with their Open.
func openFile(fsys fs.FS, name string) (fs.File, error) {
	dir, ok := osDirFS(fsys)
	if !ok {
		return fsys.Open(name)
	}
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(name)), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		// Name the file as fsys does, not by its path on the machine.
		if pe, ok := err.(*fs.PathError); ok {
			pe.Path = name
		}
		return nil, err
	}
	return f, nil
}

// osDirFS returns the directory of a file system made by os.DirFS, whose
// type is unexported (a string holding the directory).
func osDirFS(fsys fs.FS) (string, bool) {
	v := reflect.ValueOf(fsys)
	if !v.IsValid() {
		return "", false
	}
	t := v.Type()
	if t.PkgPath() != "os" || t.Name() != "dirFS" || t.Kind() != reflect.String || v.String() == "" {
		return "", false
	}
	return v.String(), true
}
