package mpq

import "errors"

func unHuffman(in []byte, limit int) ([]byte, error) {
	return nil, errors.New("not supported yet")
}
