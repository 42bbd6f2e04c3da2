package mpq

import (
	"encoding/binary"

	"github.com/modelfs/modelfs/internal/mpq/internal/crypt"
)

var le = binary.LittleEndian

const (
	hashIndex = crypt.Index
	hashNameA = crypt.NameA
	hashNameB = crypt.NameB
	hashKey   = crypt.Key
)

var (
	hashString = crypt.Hash
	decrypt    = crypt.Decrypt
	fileKey    = crypt.FileKey
	guessKey   = crypt.GuessKey
)
