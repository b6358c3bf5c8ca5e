package security

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Authority is a CA that signs the certificates of a cluster's processes.
type Authority struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// NewAuthority makes a self-signed CA valid for the given time from now.
func NewAuthority(name string, valid time.Duration) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl, err := template(name, time.Now().Add(-time.Hour), time.Now().Add(valid))
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, key: key}, nil
}

// LoadAuthority reads a CA's certificate and key, as `dusk tls init`
// wrote them, to sign more certificates.
func LoadAuthority(certFile, keyFile string) (*Authority, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("CA %s, %s: %w", certFile, keyFile, err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("CA key %s: want an ECDSA key", keyFile)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("CA %s: %w", certFile, err)
	}
	return &Authority{Cert: cert, key: key}, nil
}

// Issue signs a certificate for name, good for serving and for dialing
// (every process of a cluster does both), valid from notBefore to
// notAfter. It returns the certificate and its key, PEM-encoded.
func (a *Authority) Issue(name string, notBefore, notAfter time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl, err := template(name, notBefore, notAfter)
	if err != nil {
		return nil, nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemOf("CERTIFICATE", der), pemOf("EC PRIVATE KEY", kder), nil
}

// CertPEM is the CA's certificate, PEM-encoded.
func (a *Authority) CertPEM() []byte { return pemOf("CERTIFICATE", a.Cert.Raw) }

// KeyPEM is the CA's private key, PEM-encoded.
func (a *Authority) KeyPEM() ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(a.key)
	if err != nil {
		return nil, err
	}
	return pemOf("EC PRIVATE KEY", der), nil
}

// Roles are the certificates `dusk tls init` writes beside the CA.
var Roles = []string{"scheduler", "worker", "client"}

// Write issues a certificate for name valid from notBefore to notAfter and
// writes it to dir as NAME.pem and NAME-key.pem, beside the CA's ca.pem;
// keys are readable by their owner only. It returns the three files.
func (a *Authority) Write(dir, name string, notBefore, notAfter time.Time) (Files, error) {
	f := Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, name+".pem"), Key: filepath.Join(dir, name+"-key.pem")}
	cert, key, err := a.Issue("dusk-"+name, notBefore, notAfter)
	if err != nil {
		return f, fmt.Errorf("issue %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	for _, w := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{{f.CA, a.CertPEM(), 0o644}, {f.Cert, cert, 0o644}, {f.Key, key, 0o600}} {
		if err := os.WriteFile(w.path, w.data, w.mode); err != nil {
			return f, err
		}
	}
	return f, nil
}

// Init writes into dir a new CA (ca.pem, ca-key.pem) and, for each of
// Roles, ROLE.pem and ROLE-key.pem valid for the given time: the material
// of a small cluster or a test. It refuses to overwrite a CA.
func Init(dir string, valid time.Duration) (map[string]Files, error) {
	if _, err := os.Stat(filepath.Join(dir, "ca.pem")); err == nil {
		return nil, fmt.Errorf("tls init: %s already exists; remove it or pick another directory", filepath.Join(dir, "ca.pem"))
	}
	ca, err := NewAuthority("dusk-ca", 10*365*24*time.Hour)
	if err != nil {
		return nil, fmt.Errorf("tls init: %w", err)
	}
	out := map[string]Files{}
	for _, role := range Roles {
		if out[role], err = ca.Write(dir, role, time.Now().Add(-time.Hour), time.Now().Add(valid)); err != nil {
			return nil, fmt.Errorf("tls init: %w", err)
		}
	}
	key, err := ca.KeyPEM()
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "ca-key.pem"), key, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("tls init: %w", err)
	}
	return out, nil
}

func template(name string, notBefore, notAfter time.Time) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name, Organization: []string{"Dusk"}},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
	}, nil
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}
