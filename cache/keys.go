package cache

import (
	"crypto/sha256"
	"debug/elf"
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

// BuildID identifies this program, so that any change to a reader (or
// anything else) invalidates what it cached: the build ID the Go linker
// writes into an ELF executable (a hash of the program's inputs and of the
// executable itself, read from one small section), else a hash of the
// whole executable (tens of ms, a tenth of a warm build).
var BuildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	if id := goBuildID(exe); id != "" {
		return Key("go build id", id)[:24]
	}
	f, err := os.Open(exe)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
})

// goBuildID reads the Go build ID note of the ELF executable exe: "" when
// it has none, or an empty one (go build -ldflags=-buildid=).
func goBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	note, err := s.Data()
	// A note: the sizes of its name and description, its type, then the
	// name ("Go", padded to 4 bytes) and the description, the ID.
	if err != nil || len(note) < 16 {
		return ""
	}
	name, desc := f.ByteOrder.Uint32(note), f.ByteOrder.Uint32(note[4:])
	start := 12 + (uint64(name)+3)&^3
	if name != 4 || string(note[12:14]) != "Go" || start+uint64(desc) > uint64(len(note)) {
		return ""
	}
	return string(note[start : start+uint64(desc)])
}
