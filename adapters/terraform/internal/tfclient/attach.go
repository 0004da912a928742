package tfclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"time"

	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/adapters/terraform/internal/unarygrpc"
	"github.com/pierhq/pier/schema/logkey"
	"google.golang.org/protobuf/proto"
)

// Attachment is what another process needs to use a provider this one
// started: its address, the TLS material of both ends, and the schema
// already read, so that the provider answers GetProviderSchema once per
// command however many bridges use it.
//
// ClientKey is a secret (it lets its holder call the provider): an
// Attachment travels on pipes only, never in argv, the environment or logs.
type Attachment struct {
	Network         string `json:"network"`
	Address         string `json:"address"`
	Pid             int    `json:"pid"`
	ProtocolVersion int    `json:"protocol_version"`
	// ClientCert and ClientKey are the client certificate and key, PEM.
	ClientCert []byte `json:"client_cert"`
	ClientKey  []byte `json:"client_key"`
	// ServerCert is the provider's certificate, DER, pinned by whoever
	// attaches.
	ServerCert []byte `json:"server_cert"`
	// Schema is the provider's GetProviderSchema response, protobuf.
	Schema []byte `json:"schema"`
	// SessionTicket and SessionState are a TLS 1.3 session the starting
	// process's own connection got from the provider (see
	// [Client.Attachment]), so that whoever attaches resumes it instead
	// of a full handshake; empty when the provider gave none. The state
	// holds the session's resumption secret: a secret, as ClientKey is.
	SessionTicket []byte `json:"session_ticket,omitempty"`
	SessionState  []byte `json:"session_state,omitempty"`
	// ConfigureError is set when the provider rejected its configuration
	// (by the host, after the holder tried it).
	ConfigureError string `json:"configure_error,omitempty"`
}

// Attachment describes the running provider for [Attach]. It reads the
// schema first if no call has yet (that call also completes the TLS
// handshake that reveals the provider's certificate).
func (c *Client) Attachment(ctx context.Context) (*Attachment, error) {
	if c.attached != nil || c.plugin == nil {
		return nil, fmt.Errorf("provider %s: only the process that started a provider can describe it for others", c.name)
	}
	if _, err := c.Schema(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	srv := c.serverCert
	c.mu.Unlock()
	if srv == nil {
		return nil, fmt.Errorf("provider %s: its connection is not TLS: this is a bug in pier", c.name)
	}
	schema, err := proto.Marshal(c.schemaMsg)
	if err != nil {
		return nil, fmt.Errorf("provider %s: encode schema: %w", c.name, err)
	}
	rc := c.plugin.ReattachConfig()
	if rc == nil || rc.Addr == nil {
		return nil, fmt.Errorf("provider %s: no address to attach to", c.name)
	}
	ticket, state := c.sessions.resumption()
	return &Attachment{
		Network:         rc.Addr.Network(),
		Address:         rc.Addr.String(),
		Pid:             rc.Pid,
		ProtocolVersion: c.version,
		ClientCert:      c.clientCert,
		ClientKey:       c.clientKey,
		ServerCert:      srv,
		Schema:          schema,
		SessionTicket:   ticket,
		SessionState:    state,
	}, nil
}

// notePeer keeps the provider's certificate from the TLS handshake; the
// handshake has already verified it against the one the provider
// announced.
func (c *Client) notePeer(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) > 0 {
		c.mu.Lock()
		c.serverCert = cs.PeerCertificates[0].Raw
		c.mu.Unlock()
	}
	return nil
}

// Attach connects to a provider another process started, with the schema
// that process read. Calls from several attached clients run concurrently
// on the one provider, as under Terraform. Close only drops the
// connection; the provider lives until the process that started it stops
// it.
//
// The connection is pier's own ([unarygrpc]), not go-plugin's reattach
// over grpc-go: an attached client makes one call at a time, and grpc-go's
// goroutine handoffs cost a bridge more CPU than the rest of its request.
// Nor does it open go-plugin's broker and stdio streams: what the provider
// writes to its redirected stdout and stderr goes to the process that
// started it, which logs it.
func Attach(a *Attachment, name string, logger *slog.Logger) (*Client, error) {
	log := logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{name: name, path: name, log: log, version: a.ProtocolVersion}
	c.sink = &logSink{log: log.With(logkey.Provider, name), module: "provider." + name}
	var addr net.Addr
	switch a.Network {
	case "unix":
		addr = &net.UnixAddr{Net: "unix", Name: a.Address}
	case "tcp":
		ta, err := net.ResolveTCPAddr("tcp", a.Address)
		if err != nil {
			return nil, fmt.Errorf("provider %s: attach: %w", name, err)
		}
		addr = ta
	default:
		return nil, fmt.Errorf("provider %s: attach: unknown network %q", name, a.Network)
	}
	var decode func([]byte) (*tfproto.ProviderSchema, error)
	switch a.ProtocolVersion {
	case 5:
		decode = decodeSchemaV5
	case 6:
		decode = decodeSchemaV6
	default:
		return nil, fmt.Errorf("provider %s: attach: unsupported protocol version %d", name, a.ProtocolVersion)
	}
	s, err := decode(a.Schema)
	if err != nil {
		return nil, fmt.Errorf("provider %s: attach: decode schema: %w", name, err)
	}
	cert, err := tls.X509KeyPair(a.ClientCert, a.ClientKey)
	if err != nil {
		return nil, fmt.Errorf("provider %s: attach: client certificate: %w", name, errors.New("not a certificate and key pair"))
	}
	srv, err := x509.ParseCertificate(a.ServerCert)
	if err != nil {
		return nil, fmt.Errorf("provider %s: attach: provider certificate: %w", name, err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	// The same mutual TLS as go-plugin's AutoMTLS: this end's certificate
	// is the one the provider was started to trust, and the provider's is
	// pinned. h2 is what gRPC servers require by ALPN.
	c.watch, c.pid = watchExit(a.Pid), a.Pid
	var d net.Dialer
	raw, err := d.DialContext(ctx, addr.Network(), addr.String())
	if err != nil {
		err = c.wrap("attach", err)
		c.Close()
		return nil, err
	}
	tc := tls.Client(quiet(raw), &tls.Config{
		Certificates:       []tls.Certificate{cert},
		RootCAs:            roots,
		MinVersion:         tls.VersionTLS12,
		ServerName:         "localhost",
		NextProtos:         []string{"h2"},
		ClientSessionCache: resumeSession(a, log),
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		err = c.wrap("attach: TLS handshake", err)
		c.Close()
		return nil, err
	}
	c.resumed = tc.ConnectionState().DidResume
	log.Debug("TLS handshake with the provider", logkey.Provider, name, logkey.Resumed, c.resumed)
	conn, err := unarygrpc.New(ctx, tc, unarygrpc.Config{Authority: "localhost", MaxRecvMsgSize: MaxRecvMsgSize})
	if err != nil {
		err = c.wrap("attach", err)
		c.Close()
		return nil, err
	}
	c.attached = conn
	var p protocol
	if a.ProtocolVersion == 5 {
		p = newV5(conn)
	} else {
		p = newV6(conn)
	}
	c.proto = p
	c.schema = s
	log.Debug("attached to provider", logkey.Provider, name, logkey.Protocol, c.version, logkey.Pid, a.Pid)
	return c, nil
}

// newCertificate makes a self-signed certificate for one provider
// connection, as go-plugin's AutoMTLS does: both ends pin each other's.
func newCertificate() (cert tls.Certificate, certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return cert, nil, nil, fmt.Errorf("generate TLS key: %w", err)
	}
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return cert, nil, nil, fmt.Errorf("generate TLS certificate: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"pier"}},
		DNSNames:              []string{"localhost"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return cert, nil, nil, fmt.Errorf("generate TLS certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return cert, nil, nil, fmt.Errorf("encode TLS key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return cert, nil, nil, fmt.Errorf("load TLS certificate: %w", err)
	}
	return cert, certPEM, keyPEM, nil
}
