// Package hosts is a test bed of simulated machines on this one: each host
// is a Linux network namespace with an address of its own, joined to the
// others through a bridge in a namespace of its own, so that nothing of
// the bed is reachable from, or routed through, the machine's own
// interfaces. Links are rate-limited (tc tbf), taken down and up, and made
// to lose packets (nftables); processes run inside a host and are killed
// and restarted; a test reaches a host's services through Host.Dial and
// Host.HTTP (a thread of its own moved into the host). Everything is torn
// down when the test ends, and what a killed test left behind is swept by
// the next bed. Importing it locks the main goroutine to the main thread,
// which must never enter a host.
//
// It needs root, ip(8) and tc(8); packet loss needs nft(8). Where they are
// missing a bed skips its test saying why, unless CI is set, where a
// missing tool fails the test: a CI run must run every test it claims.
//
// Must never import: the collections, scheduler or worker.
package hosts
