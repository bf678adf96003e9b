package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"sync"
)

// Key hashes its parts into a cache key. Parts are length-prefixed, so
// ("ab","c") and ("a","bc") differ.
func Key(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Hash is the sha256 of data in hex: what names a blob, an image's file
// and an asset's fingerprint by their content.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// HashFS hashes every file under roots of fsys, with its path: the
// theme's templates and assets, whose change must re-render every page.
func HashFS(fsys fs.FS, roots ...string) (string, error) {
	h := sha256.New()
	for _, root := range roots {
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := fsys.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			io.WriteString(h, p+"\x00")
			_, err = io.Copy(h, f)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BuildID identifies this program: a hash of its executable, so any
// change to a reader (or anything else) invalidates what it cached.
var BuildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil)[:12])
			}
		}
	}
	return "unknown"
})
