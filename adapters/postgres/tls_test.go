package postgres

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
)

// testCA is a self-signed certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t testing.TB, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// serverCert issues a certificate for localhost (and not for 127.0.0.1,
// so that address is a name the certificate does not name).
func (ca *testCA) serverCert(t testing.TB) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// TestVerifyFull runs pier against a server whose certificate a CA of the
// test's own signed: sslmode=verify-full with that CA as PGSSLROOTCERT
// connects; another CA, or a host name the certificate does not name, is
// refused before any password is sent.
func TestVerifyFull(t *testing.T) {
	t.Parallel()
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Stop("fast")
		os.RemoveAll(srv.Dir)
	})
	ca := newTestCA(t, "pier test CA")
	certPEM, keyPEM := ca.serverCert(t)
	if err := srv.WriteFile("server.crt", certPEM); err != nil {
		t.Fatal(err)
	}
	if err := srv.WriteFile("server.key", keyPEM); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetConf("ssl = on"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop("fast"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	const password = "tls-pw-0d9b"
	if _, err := srv.Psql(`CREATE ROLE deployer LOGIN PASSWORD '` + password + `'; CREATE SCHEMA pier AUTHORIZATION deployer;`); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := write("ca.crt", ca.pem)
	other := write("other.crt", newTestCA(t, "someone else").pem)
	passfile := write("pgpass", []byte(fmt.Sprintf("*:%d:postgres:deployer:%s\n", srv.Port, password)))

	c := newCheckout(t, srv, spec{key: t.Name(), n: 1}, filepath.Join(tmp, "journal"))
	env := func(host, rootcert string) []string {
		return append(baseEnv(), "PGHOST="+host, fmt.Sprintf("PGPORT=%d", srv.Port), "PGUSER=deployer", "PGDATABASE=postgres",
			"PGPASSFILE="+passfile, "PGSSLMODE=verify-full", "PGSSLROOTCERT="+rootcert)
	}
	c.env = env("localhost", root)
	c.mustRun("apply")
	if got := recorded(t, srv, t.Name(), ""); len(got) != 1 {
		t.Errorf("recorded %d resources over TLS, want 1", len(got))
	}
	for name, e := range map[string][]string{
		"another CA":         env("localhost", other),
		"a name not in cert": env("127.0.0.1", root),
	} {
		c.env = e
		o, errs, code := c.run("plan")
		if code == 0 {
			t.Errorf("%s: plan connected:\n%s", name, o)
		}
		if !strings.Contains(errs, "connect to PostgreSQL") || !strings.Contains(strings.ToLower(errs), "certificate") {
			t.Errorf("%s: the error does not say the certificate was refused:\n%s", name, errs)
		}
		if strings.Contains(o+errs, password) {
			t.Errorf("%s: the password is in the output", name)
		}
	}
}
