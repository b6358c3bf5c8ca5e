//go:build linux

package hosts

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// Subnet is where the hosts' addresses are: 198.18.0.0/15 is set apart
// for benchmarking network devices (RFC 2544), and no machine outside the
// bed answers there.
const Subnet = "198.18.0.0/24"

// prefix starts every namespace a bed makes: "dk", the test process's id,
// and the bed's number in it.
const prefix = "dk"

// Link is how a host's link to the bridge behaves, in both directions.
type Link struct {
	// Rate is tc's rate, such as "1gbit" or "100mbit"; empty is unlimited.
	Rate string
}

// Bed is a set of hosts on one bridge.
type Bed struct {
	t     testing.TB
	ns    string // the bridge's namespace
	Hosts []*Host

	mu    sync.Mutex
	procs []*Proc
}

// Host is one simulated machine.
type Host struct {
	bed  *Bed
	Name string     // h0, h1, …
	IP   netip.Addr // its address on the bridge
	ns   string     // its namespace
	port string     // its port on the bridge, in the bridge's namespace
}

var beds atomic.Int64

// New makes n hosts linked as link says, torn down when t ends.
func New(t testing.TB, n int, link Link) *Bed {
	t.Helper()
	Require(t, "ip", "tc")
	sweep()
	id := prefix + strconv.Itoa(os.Getpid()) + "b" + strconv.FormatInt(beds.Add(1), 10)
	b := &Bed{t: t, ns: id + "s"}
	t.Cleanup(b.close)
	b.must("ip", "netns", "add", b.ns)
	b.must("ip", "-n", b.ns, "link", "set", "lo", "up")
	b.must("ip", "-n", b.ns, "link", "add", "br0", "type", "bridge")
	b.must("ip", "-n", b.ns, "link", "set", "br0", "up")
	base := netip.MustParsePrefix(Subnet).Addr()
	for i := range n {
		ip := base
		for range i + 1 {
			ip = ip.Next()
		}
		h := &Host{bed: b, Name: "h" + strconv.Itoa(i), IP: ip, ns: id + "h" + strconv.Itoa(i), port: "p" + strconv.Itoa(i)}
		b.Hosts = append(b.Hosts, h)
		b.must("ip", "netns", "add", h.ns)
		b.must("ip", "-n", h.ns, "link", "set", "lo", "up")
		b.must("ip", "-n", b.ns, "link", "add", h.port, "type", "veth", "peer", "name", "eth0", "netns", h.ns)
		b.must("ip", "-n", b.ns, "link", "set", h.port, "master", "br0")
		b.must("ip", "-n", b.ns, "link", "set", h.port, "up")
		b.must("ip", "-n", h.ns, "addr", "add", ip.String()+"/24", "dev", "eth0")
		b.must("ip", "-n", h.ns, "link", "set", "eth0", "up")
		h.Shape(link)
	}
	return b
}

// Require skips t, or fails it under CI, unless it runs as root with every
// tool named on its PATH.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "the host bed needs root (network namespaces)"
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil && why == "" {
			why = fmt.Sprintf("the host bed needs %s, which is not installed (.ci/run installs it)", tool)
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Shape sets the host's link as l says, in both directions.
func (h *Host) Shape(l Link) {
	for _, dev := range [][2]string{{h.ns, "eth0"}, {h.bed.ns, h.port}} {
		if l.Rate == "" {
			h.bed.run("tc", "-n", dev[0], "qdisc", "del", "dev", dev[1], "root") // none there is no error here
			continue
		}
		// A burst of a few milliseconds at the rate, as a switch's buffer.
		h.bed.must("tc", "-n", dev[0], "qdisc", "replace", "dev", dev[1], "root", "tbf",
			"rate", l.Rate, "burst", "256kb", "latency", "20ms")
	}
}

// Down cuts the host off: its port on the bridge goes down, and every
// packet to or from it is lost until Up.
func (h *Host) Down() { h.bed.must("ip", "-n", h.bed.ns, "link", "set", h.port, "down") }

// Up joins the host to the bridge again.
func (h *Host) Up() { h.bed.must("ip", "-n", h.bed.ns, "link", "set", h.port, "up") }

// Unplug takes the host's own interface down, as a host whose cable is
// pulled sees it: its route to the others goes too, so that it cannot even
// pick an address to reach them by, until Plug.
func (h *Host) Unplug() { h.bed.must("ip", "-n", h.ns, "link", "set", "eth0", "down") }

// Plug brings the host's interface up again, its route with it.
func (h *Host) Plug() { h.bed.must("ip", "-n", h.ns, "link", "set", "eth0", "up") }

// Lose drops the given percentage of the packets the host sends, at
// random (0 drops none), as netem's loss on its interface does. They are
// dropped at the host's port on the bridge, in the network: the host's own
// stack sees no error, only packets that never arrive. (Dropping both ways
// loses a round trip in three; TCP's doubling retransmission timeout then
// stalls a connection for a minute and more every few hundred losses.)
func (h *Host) Lose(percent int) {
	Require(h.bed.t, "nft")
	table := "loss" + h.port
	h.bed.run("ip", "netns", "exec", h.bed.ns, "nft", "delete", "table", "netdev", table)
	if percent == 0 {
		return
	}
	rules := fmt.Sprintf(`table netdev %[1]s {
	chain from { type filter hook ingress device %[2]s priority 0; numgen random mod 100 < %[3]d drop; }
}
`, table, h.port, percent)
	cmd := exec.Command("ip", "netns", "exec", h.bed.ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		h.bed.t.Fatalf("hosts: nft for %s: %v: %s", h.Name, err, out)
	}
}

// Counters are the bytes a host's interface sent and received, as the
// kernel counts them (Ethernet frames, headers and all).
type Counters struct{ Sent, Received int64 }

// Counters reads the host's interface counters.
func (h *Host) Counters() Counters {
	read := func(name string) int64 {
		out := h.bed.must("ip", "netns", "exec", h.ns, "cat", "/sys/class/net/eth0/statistics/"+name)
		n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil {
			h.bed.t.Fatalf("hosts: %s's %s: %v", h.Name, name, err)
		}
		return n
	}
	return Counters{Sent: read("tx_bytes"), Received: read("rx_bytes")}
}

// Command is a command to run inside the host, as exec.Command makes one.
func (h *Host) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", h.ns, name}, args...)...)
}

// close kills the bed's processes and removes its namespaces.
func (b *Bed) close() {
	b.mu.Lock()
	procs := b.procs
	b.mu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
	for _, h := range b.Hosts {
		killIn(h.ns)
		b.run("ip", "netns", "del", h.ns)
	}
	b.run("ip", "netns", "del", b.ns)
}

// must runs a command of the bed's set-up, failing the test if it fails.
func (b *Bed) must(name string, args ...string) string {
	b.t.Helper()
	out, err := b.run(name, args...)
	if err != nil {
		b.t.Fatalf("hosts: %s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func (b *Bed) run(name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// killIn kills every process left in the namespace ns, never this one.
func killIn(ns string) {
	out, _ := exec.Command("ip", "netns", "pids", ns).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// sweep removes the namespaces of beds whose test process is gone (one
// killed before its clean-up ran).
func sweep() {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], prefix) {
			continue
		}
		rest := f[0][len(prefix):]
		i := strings.IndexByte(rest, 'b')
		if i < 0 {
			continue
		}
		pid, err := strconv.Atoi(rest[:i])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		killIn(f[0])
		exec.Command("ip", "netns", "del", f[0]).Run()
	}
}
