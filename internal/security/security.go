// Package security is the TLS of a cluster: every connection between a
// client, the scheduler and the workers is mutual TLS with certificates
// signed by the cluster's CA, as Dask's --tls-ca-file, --tls-cert and
// --tls-key; a peer without one is refused at the handshake. Hostnames are
// not checked (workers come and go at any address, as Dask's TLS does not
// check them either): the CA's signature is what admits a peer.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package security

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// Files names the TLS material of one process, as its flags give it.
type Files struct {
	CA   string // the cluster's CA certificate (PEM)
	Cert string // this process's certificate (PEM), signed by the CA
	Key  string // its private key (PEM)
}

// AddFlags adds Dask's three TLS flags to fs, filling f: every command
// that connects to a cluster takes them.
func AddFlags(fs *flag.FlagSet, f *Files) {
	fs.StringVar(&f.CA, "tls-ca-file", "", "the cluster's CA certificate (PEM): peers must present a certificate it signed")
	fs.StringVar(&f.Cert, "tls-cert", "", "this process's certificate (PEM), signed by the CA")
	fs.StringVar(&f.Key, "tls-key", "", "the private key of --tls-cert (PEM)")
}

// Enabled reports whether any of the three is given.
func (f Files) Enabled() bool { return f.CA != "" || f.Cert != "" || f.Key != "" }

// TLS is a process's loaded TLS material.
type TLS struct {
	roots *x509.CertPool
	cert  tls.Certificate
}

// Load reads the three files; all three are required together.
func Load(f Files) (*TLS, error) {
	if f.CA == "" || f.Cert == "" || f.Key == "" {
		return nil, errors.New("TLS needs all three of --tls-ca-file, --tls-cert and --tls-key")
	}
	caPEM, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, fmt.Errorf("--tls-ca-file: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("--tls-ca-file %s: no PEM certificate in it", f.CA)
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", f.Cert, f.Key, err)
	}
	return &TLS{roots: roots, cert: cert}, nil
}

// Server is the configuration of a listener: it presents the process's
// certificate and admits only peers whose certificate the CA signed.
func (t *TLS) Server() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{t.cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    t.roots,
		NextProtos:   []string{"h2"},
	}
}

// Client is the configuration of a dialer: it presents the process's
// certificate and checks that the CA signed the server's (not its name).
func (t *TLS) Client() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{t.cert},
		NextProtos:   []string{"h2"},
		// The chain is checked below, against the CA, without a hostname.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server presented no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
				Roots: t.roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			return err
		},
	}
}

// Explain turns a failed handshake into what a person needs to read: who
// refused whom and why, with the flags to look at. dialing says whether
// this process dialed peer or peer dialed it.
func Explain(peer string, err error, dialing bool) error {
	msg := err.Error()
	them, us := "the peer", "this process"
	if dialing {
		them = "the server"
	}
	var why string
	switch remote := strings.Contains(msg, "remote error"); {
	case strings.Contains(msg, "first record does not look like a TLS handshake"), strings.Contains(msg, "server gave HTTP response"):
		why = them + " does not speak TLS: give both sides --tls-ca-file, --tls-cert and --tls-key (dusk.TLS for a client), or neither"
	case remote && strings.Contains(msg, "certificate required"):
		why = them + " requires a certificate: give --tls-cert and --tls-key (dusk.TLS for a client)"
	case remote && strings.Contains(msg, "expired"):
		why = them + " refused " + us + "'s certificate: it has expired"
	case remote:
		why = them + " refused " + us + "'s certificate: is it signed by another CA than " + them + "'s --tls-ca-file?"
	case errors.As(err, new(x509.UnknownAuthorityError)):
		why = them + "'s certificate is not signed by this cluster's CA (--tls-ca-file)"
	case strings.Contains(msg, "expired") || strings.Contains(msg, "not yet valid"):
		why = them + "'s certificate has expired or is not yet valid"
	case strings.Contains(msg, "didn't provide a certificate"):
		why = them + " presented no certificate: give it --tls-cert and --tls-key (dusk.TLS for a client)"
	}
	side := "refused a connection from " + peer
	if dialing {
		side = "TLS handshake with " + peer + " failed"
	}
	if why == "" {
		return &HandshakeError{Peer: peer, Err: fmt.Errorf("%s: %w", side, err)}
	}
	return &HandshakeError{Peer: peer, Err: fmt.Errorf("%s: %s (%w)", side, why, err)}
}

// HandshakeError is a refused TLS handshake. Trying again does not help:
// the certificates must change.
type HandshakeError struct {
	Peer string
	Err  error
}

func (e *HandshakeError) Error() string { return e.Err.Error() }
func (e *HandshakeError) Unwrap() error { return e.Err }

// NewGossipKey is a fresh key for the membership cluster's encryption. A
// scheduler with TLS makes one and hands it to its workers in their
// welcome, which travels over mutual TLS.
func NewGossipKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// ParseGossipKey reads --gossip-key: 16, 24 or 32 bytes in base64 (as
// `head -c 32 /dev/urandom | base64` writes them).
func ParseGossipKey(s string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(k) != 16 && len(k) != 24 && len(k) != 32 {
		return nil, errors.New("--gossip-key: want 16, 24 or 32 bytes in base64")
	}
	return k, nil
}
