package plan

// ReadStatesFirst turns reading the states before the deployment resolves
// on and off, for tests that compare the plans made either way.
func ReadStatesFirst(on bool) (restore func()) {
	was := readStatesFirst
	readStatesFirst = on
	return func() { readStatesFirst = was }
}

// ReadFirst reports whether p was planned from states read first.
func ReadFirst(p *Plan) bool { return p.readFirst }
