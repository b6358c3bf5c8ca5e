// Package membership is the gossip cluster that the scheduler and its
// workers form (hashicorp/memberlist): members probe each other, and one
// that stops answering (a frozen process, a lost machine) is declared dead
// within a few seconds, even while its TCP connections look open.
//
// Must never import: scheduler, worker, or the collections.
package membership

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/duskdata/dusk/internal/transport"
)

// Config describes one member.
type Config struct {
	// Name is unique in the cluster: a worker's ID.
	Name string
	// Host and Port to gossip on; port 0 picks a free one.
	Host string
	Port int
	// Advertise is the host others are told to reach this member at, where
	// it differs from Host (NAT, containers); empty: Host.
	Advertise string
	// OnLeave is called with the name of a member that left or was
	// declared dead.
	OnLeave func(name string)
	Log     *slog.Logger
	// Key, when set, encrypts and authenticates every gossip message
	// (16, 24 or 32 bytes: AES-128, -192 or -256); members without it
	// can neither read nor join.
	Key []byte
}

// DeadAfter bounds how long a member that stops answering stays alive in
// the others' eyes: probes every half second, and a suspicion period of a
// few probes before it is declared dead.
const DeadAfter = 10 * time.Second

// Members is this process's membership.
type Members struct {
	ml      *memberlist.Memberlist
	keyless bool
}

// Start joins nothing yet: it starts gossiping as a cluster of one.
func Start(cfg Config) (*Members, error) {
	c := memberlist.DefaultLANConfig()
	c.Name = cfg.Name
	c.BindAddr = cfg.Host
	c.BindPort = cfg.Port
	c.AdvertisePort = cfg.Port
	if cfg.Advertise != "" && cfg.Advertise != cfg.Host {
		// memberlist takes an IP: a name is looked up once, here.
		ips, err := net.LookupIP(cfg.Advertise)
		if err != nil || len(ips) == 0 {
			return nil, fmt.Errorf("gossip advertised at %s: %v", cfg.Advertise, err)
		}
		c.AdvertiseAddr = ips[0].String()
	}
	c.ProbeInterval = 500 * time.Millisecond
	c.ProbeTimeout = 250 * time.Millisecond
	c.SuspicionMult = 4
	c.GossipInterval = 100 * time.Millisecond
	c.TCPTimeout = 2 * time.Second
	c.Logger = log.New(logWriter{cfg.Log}, "", 0)
	c.SecretKey = cfg.Key
	if cfg.OnLeave != nil {
		c.Events = leaveEvents(cfg.OnLeave)
	}
	ml, err := memberlist.Create(c)
	if err != nil {
		return nil, fmt.Errorf("start gossip on %s:%d: %w", cfg.Host, cfg.Port, err)
	}
	return &Members{ml: ml, keyless: cfg.Key == nil}, nil
}

// Addr is where others join this member.
func (m *Members) Addr() string {
	n := m.ml.LocalNode()
	return net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))
}

// Join joins the cluster that the member at addr belongs to. Its error
// names the address and why, with a hint that fits: a network that does
// not reach it, or a key that does not match.
func (m *Members) Join(addr string) error {
	_, err := m.ml.Join([]string{addr})
	if err == nil {
		return nil
	}
	msg := err.Error()
	var hint string
	switch {
	case strings.Contains(msg, "decrypt") || strings.Contains(msg, "ncrypt"):
		hint = "the gossip keys differ"
		if m.keyless {
			hint = "the cluster's gossip is encrypted: give --gossip-key"
		}
	case strings.Contains(msg, "refused") || strings.Contains(msg, "unreachable") || strings.Contains(msg, "timeout") || strings.Contains(msg, "no route"):
		hint = "the scheduler's gossip port cannot be reached from here"
		if host, _, _ := net.SplitHostPort(addr); transport.Loopback(host) {
			hint += "; it advertised a loopback address, so it found no outward one: give the scheduler --host or --contact-address"
		} else {
			hint += "; a firewall may be in the way (the scheduler's --gossip-port fixes its port)"
		}
	}
	if hint != "" {
		return fmt.Errorf("join gossip at %s: %w (%s)", addr, err, hint)
	}
	return fmt.Errorf("join gossip at %s: %w", addr, err)
}

// Leave tells the others this member is going, then stops gossiping. A
// nil Members (no membership cluster joined) has nothing to leave.
func (m *Members) Leave() {
	if m == nil {
		return
	}
	m.ml.Leave(time.Second)
	m.ml.Shutdown()
}

type leaveEvents func(string)

func (f leaveEvents) NotifyJoin(*memberlist.Node)   {}
func (f leaveEvents) NotifyUpdate(*memberlist.Node) {}
func (f leaveEvents) NotifyLeave(n *memberlist.Node) {
	f(n.Name)
}

// logWriter passes memberlist's log lines to slog at debug level.
type logWriter struct{ log *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	if w.log != nil {
		w.log.Debug("gossip", "msg", string(p))
	}
	return len(p), nil
}

var _ io.Writer = logWriter{}
