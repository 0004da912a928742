package webview

import (
	"maps"
	"testing"
)

func TestTouchedStatuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string
		want  map[string]string
	}{
		{"intent only", []string{"/pierPendingOperations/web"}, map[string]string{"web": "applying"}},
		{"recorded, intent cleared", []string{"/resources/web", "/pierPendingOperations/web"}, map[string]string{"web": "applied"}},
		{"inside an entry", []string{"/resources/web/outputProperties/id"}, map[string]string{"web": "applied"}},
		{"nested deployment", []string{"/deployments/net/deployments/db/resources/main"}, map[string]string{"net.db.main": "applied"}},
		{"escaped", []string{`/resources/files["a~1b"]`, `/pierPendingOperations/x~0y`}, map[string]string{`files["a/b"]`: "applied", "x~y": "applying"}},
		{"other paths", []string{"", "/outputs/url", "/deployments/net"}, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := touchedStatuses(tc.paths); !maps.Equal(got, tc.want) {
				t.Errorf("touchedStatuses(%q) = %v; want %v", tc.paths, got, tc.want)
			}
		})
	}
}
