package nixsource

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

func TestFindCycle(t *testing.T) {
	t.Parallel()
	a := func(s string) source.Address {
		addr, err := source.ParseAddress(s)
		if err != nil {
			t.Fatal(err)
		}
		return addr
	}
	blocked := func(addr string, structural bool, waits ...string) *source.Blocked {
		b := &source.Blocked{Address: a(addr), Structural: structural}
		for _, w := range waits {
			b.WaitsOn = append(b.WaitsOn, a(w))
		}
		return b
	}
	cases := map[string]struct {
		blocked []*source.Blocked
		want    []string
	}{
		"nil":            {},
		"chain":          {blocked: []*source.Blocked{blocked("b", false, "a"), blocked("c", false, "b")}},
		"self":           {blocked: []*source.Blocked{blocked("a", false, "a")}, want: []string{"a"}},
		"three":          {blocked: []*source.Blocked{blocked("c", false, "a"), blocked("a", false, "g.b"), blocked("g.b", false, "c")}, want: []string{"a", "g.b", "c"}},
		"tail then loop": {blocked: []*source.Blocked{blocked("a", false, "b"), blocked("b", false, "c"), blocked("c", false, "b")}, want: []string{"b", "c"}},
		"through structural composite": {
			blocked: []*source.Blocked{blocked("s", true, "x"), blocked("x", false, "s.member")},
			want:    []string{"s", "x"},
		},
		"wait on a ready resource": {blocked: []*source.Blocked{blocked("b", false, "ready")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, strs(findCycle(tc.blocked))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseTraces(t *testing.T) {
	t.Parallel()
	type want struct {
		Needs   map[string][][]string
		Reads   map[string][][]string
		Last    []string
		Message string
	}
	cases := map[string]struct {
		stderr string
		want   want
	}{
		"empty": {want: want{Needs: map[string][][]string{}, Reads: map[string][][]string{}}},
		"events attributed to the last begin": {
			stderr: `trace: pier:{"begin":["a"],"kind":"member"}
trace: pier:{"need":["db"],"output":"name"}
warning: Git tree '/x' is dirty
trace: pier:{"begin":["g","b"],"kind":"resource"}
trace: pier:{"read":["db"]}
trace: the flake's own trace
trace: pier:{"read":["c"]}
`,
			want: want{
				Needs:   map[string][][]string{"a": {{"db"}}, "g.b": nil},
				Reads:   map[string][][]string{"a": nil, "g.b": {{"db"}, {"c"}}},
				Last:    []string{"g", "b"},
				Message: "warning: Git tree '/x' is dirty\ntrace: the flake's own trace",
			},
		},
		"error message without the error word": {
			stderr: "trace: pier:{\"begin\":[\"x\"],\"kind\":\"resource\"}\nwarning: w\nerror: cannot add\n\n       at f.nix:1:2\n",
			want: want{
				Needs:   map[string][][]string{"x": nil},
				Reads:   map[string][][]string{"x": nil},
				Last:    []string{"x"},
				Message: "cannot add\n\n       at f.nix:1:2",
			},
		},
		"the driver's abort unwrapped": {
			stderr: "error: evaluation aborted with the following error message: 'pier: resource db has no output 'x''\n",
			want:   want{Needs: map[string][][]string{}, Reads: map[string][][]string{}, Message: "resource db has no output 'x'"},
		},
		"garbled event is not ours": {
			stderr: "trace: pier:{not json\n",
			want:   want{Needs: map[string][][]string{}, Reads: map[string][][]string{}, Message: "trace: pier:{not json"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := parseTraces([]byte(tc.stderr))
			got := want{Needs: map[string][][]string{}, Reads: map[string][][]string{}, Last: tr.last, Message: tr.message()}
			for k, m := range tr.byMember {
				got.Needs[k] = m.needs
				got.Reads[k] = m.reads
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
