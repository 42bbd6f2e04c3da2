package mpq

func (a *Archive) readExtendedTables() error {
	return a.errorf(a.hdr.base, nil, "HET/BET tables are not supported yet")
}
