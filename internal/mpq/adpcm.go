package mpq

import "errors"

func unADPCM(in []byte, limit int, channels int) ([]byte, error) {
	return nil, errors.New("not supported yet")
}
