package source

import "cmp"

// CompareAddresses orders address strings as a person reads them: runs
// of digits compare as numbers, so w[2] comes before w[10]; everything
// else compares byte by byte. Equal numbers with different leading zeros
// fall back to the shorter spelling first, so the order stays total.
func CompareAddresses(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			if c := compareDigits(a[si:i], b[sj:j]); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(a[i], b[j])
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// compareDigits compares two runs of decimal digits by value, then by
// length (fewer leading zeros first).
func compareDigits(a, b string) int {
	ta, tb := trimZeros(a), trimZeros(b)
	if len(ta) != len(tb) {
		return cmp.Compare(len(ta), len(tb))
	}
	if ta != tb {
		return cmp.Compare(ta, tb)
	}
	return cmp.Compare(len(a), len(b))
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
