package cache

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"time"
)

// What the cache reads back is bound to what it wrote by HMAC-SHA256 under a secret of 32
// random bytes, made once per cache directory and kept in state/.key, readable by its user
// alone: a part of an entry to its key and name, an entry's header (its metadata and the
// parts' MACs) as a whole, and each journal record. Someone who may write the directory but
// not read the secret can delete what is there, or damage it, which costs a translation;
// never make the mount serve bytes it did not make from the same sources. CRC-32C, which the
// entries carried before, catches damage but anyone can compute it. SHA-256 runs at about
// 1.5 GB/s here with the CPU's SHA extensions: a 27 MB document costs some 18 ms more to read
// from the disk tier, against a translation of seconds.
const (
	macLen     = sha256.Size
	recMACLen  = 16 // a journal record's, truncated: records are small and many
	secretLen  = 32
	secretName = ".key"
)

// Domains of the MACs, so that no MAC of one kind is one of another.
const (
	macHeader = "modelfs entry header\x00"
	macPart   = "modelfs entry part\x00"
	macRecord = "modelfs journal record\x00"
)

// mac returns the MAC of data in the domain dom.
func (d *Disk) mac(dom string, data ...[]byte) [macLen]byte {
	h := hmac.New(sha256.New, d.secret)
	io.WriteString(h, dom)
	for _, b := range data {
		h.Write(b)
	}
	var out [macLen]byte
	h.Sum(out[:0])
	return out
}

// partMAC returns the MAC of the part name of the entry of key, whose bytes are data.
func (d *Disk) partMAC(key Key, name string, data []byte) [macLen]byte {
	return d.mac(macPart, key[:], []byte(name), []byte{0}, data)
}

// sound reports whether mac is the MAC of data in the domain dom.
func (d *Disk) sound(mac []byte, dom string, data []byte) bool {
	want := d.mac(dom, data)
	return equalMAC(mac, want[:len(mac)])
}

func equalMAC(a, b []byte) bool { return hmac.Equal(a, b) }

// loadSecret returns the secret of the cache directory, kept in its folder state, making it
// when there is none. A secret of the wrong length (cut short by a power loss: it is written
// without fsync) is made anew, which costs every entry made under the old one.
func loadSecret(state *folder) ([]byte, error) {
	for try := 0; ; try++ {
		b, err := state.readSmall(secretName)
		switch {
		case err == nil && len(b) == secretLen:
			return b, nil
		case err == nil && try < 100:
			// Another process is writing it (it makes the file, then fills it).
			time.Sleep(10 * time.Millisecond)
			continue
		case err == nil:
			if err := state.remove(secretName); err != nil {
				return nil, err
			}
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
		f, err := state.createMode(secretName, 0o600) // the user's alone, whatever the cache's modes
		if errors.Is(err, fs.ErrExist) {
			continue // made by another process meanwhile
		}
		if err != nil {
			return nil, err
		}
		secret := make([]byte, secretLen)
		rand.Read(secret)
		_, err = f.Write(secret)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			state.remove(secretName)
			return nil, err
		}
		return secret, nil
	}
}
