package cache

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// What the cache reads back is bound to what it wrote under a secret of 32 random bytes, made
// once per cache directory and kept in state/.key, readable by its user alone. Someone who
// may write the directory but not read the secret can delete what is there, or damage it,
// which costs a translation; never make the mount serve bytes it did not make from the same
// sources. CRC-32C, which the entries carried before, catches damage but anyone can compute
// it.
//   - An entry's header (its key, metadata, parts' names, lengths and seals) and each journal
//     record carry an HMAC-SHA256 under the secret.
//   - Each part (a document, up to hundreds of MB) carries a seal: a GMAC (AES-256-GCM over
//     no plaintext, the part as additional data) under a key derived from the secret and a
//     nonce of 12 random bytes of its own. GMAC runs at 7.8 GB/s here (AES-NI and carry-less
//     multiplication), HMAC-SHA256 at 1.6 GB/s: a 27 MB document read back from the disk tier
//     would take 16 ms more with HMAC, 3.5 ms with GMAC. A nonce repeats with odds of 2^-96 per
//     pair of parts.
const (
	macLen     = sha256.Size
	recMACLen  = 16 // a journal record's, truncated: records are small and many
	nonceLen   = 12
	sealLen    = nonceLen + 16 // nonce, GCM tag
	secretLen  = 32
	secretName = ".key"
)

// Domains of the MACs, so that no MAC of one kind is one of another.
const (
	macHeader  = "modelfs entry header\x00"
	macPartKey = "modelfs entry part key\x00" // what derives the parts' GMAC key
	macRecord  = "modelfs journal record\x00"
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

// seal is a part's nonce and GCM tag.
type seal [sealLen]byte

// partAEAD returns the AES-256-GCM that seals parts, under a key derived from the secret.
func (d *Disk) partAEAD() cipher.AEAD {
	d.aeadOnce.Do(func() {
		k := d.mac(macPartKey)
		b, err := aes.NewCipher(k[:])
		if err != nil {
			panic(err) // a 32-byte key is always taken
		}
		if d.aead, err = cipher.NewGCM(b); err != nil {
			panic(err)
		}
	})
	return d.aead
}

// sealPart returns the seal of the part whose bytes are data, under a fresh nonce.
func (d *Disk) sealPart(data []byte) seal {
	var s seal
	rand.Read(s[:nonceLen])
	copy(s[nonceLen:], d.partAEAD().Seal(nil, s[:nonceLen], nil, data))
	return s
}

// sealed reports whether s is the seal of data.
func (d *Disk) sealed(s seal, data []byte) bool {
	_, err := d.partAEAD().Open(nil, s[:nonceLen], s[nonceLen:], data)
	return err == nil
}

// sound reports whether mac is the MAC of data in the domain dom.
func (d *Disk) sound(mac []byte, dom string, data []byte) bool {
	want := d.mac(dom, data)
	return equalMAC(mac, want[:len(mac)])
}

func equalMAC(a, b []byte) bool { return hmac.Equal(a, b) }

// loadSecret returns the secret of the cache directory, kept in its folder state, making it
// when there is none. A secret of the wrong length (cut short by a power loss: it is written
// without fsync) is made anew, which costs every entry made under the old one; so is one that
// others may read (someone made it so, or copied it so), which may have served to forge
// entries: exposed is told why.
func loadSecret(state *folder, exposed func(error)) ([]byte, error) {
	// Two processes opening the directory at once must not each replace an exposed secret
	// with one of their own.
	defer state.exclusive()()
	for try := 0; ; try++ {
		if e, err := state.lstat(secretName); err == nil && e.regular && e.perm&0o077 != 0 {
			exposed(state.untrusted(secretName, fmt.Sprintf("the cache's secret was readable by others (mode %04o): a new one is made, and what was sealed with the old one is made again", e.perm)))
			if err := state.remove(secretName); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
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
