// Package daemon is the dusk command line: `dusk scheduler` and `dusk worker`
// run the scheduler and worker drivers over gRPC, joined by a membership
// cluster that declares workers dead when they stop answering. Any binary
// can run it (dusk.Main), so that workers built from a user's program have
// its registered functions.
//
// Must never import: the collections (dataframe, bag, array).
package daemon

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/adapt"
	"github.com/duskdata/dusk/internal/adapt/kube"
	"github.com/duskdata/dusk/internal/config"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/gctune"
	"github.com/duskdata/dusk/internal/membership"
	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/grpcnet"
	"github.com/duskdata/dusk/io/storage"
	"github.com/duskdata/dusk/scheduler"
	"github.com/duskdata/dusk/scheduler/server"
	"github.com/duskdata/dusk/worker"
	"github.com/duskdata/dusk/worker/process"
	"github.com/duskdata/dusk/worker/store"
)

// Command is one of the command line's commands.
type Command struct {
	Name     string
	Synopsis string // its arguments, as usage shows them
	About    string // what it does, in a line
	Run      func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands are the command line's commands, in the order usage lists them;
// a binary adds its own with AddCommand.
var commands = []Command{
	{Name: "scheduler", Synopsis: "[--host H] [--port 8786]", About: "serve a scheduler", Run: runScheduler},
	{Name: "worker", Synopsis: "--scheduler HOST:PORT [--nthreads N] [--memory-limit 4GiB] [--resources GPU=1,...] [--name NAME] [--local-directory DIR] [--no-nanny]",
		About: "serve a worker of the scheduler's cluster, watched by a nanny", Run: runWorker},
	{Name: "cluster", Synopsis: "[--workers N | --adapt-min N --adapt-max M] [-- WORKER FLAGS]",
		About: "a scheduler that starts its workers as local processes", Run: runCluster},
	{Name: "config", Synopsis: "[COMMAND] [FLAGS]", About: "the flags in effect, and where each came from",
		Run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
			return runConfig(args, stdout, stderr)
		}},
	{Name: "tls", Synopsis: "init DIR [--days 365]", About: "a CA and certificates for a cluster",
		Run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
			return runTLS(args, stdout, stderr)
		}},
	{Name: "version", About: "the build: module version, commit, Go version",
		Run: func(_ context.Context, _ []string, stdout, _ io.Writer) error {
			fmt.Fprint(stdout, version(debug.ReadBuildInfo()))
			return nil
		}},
}

// AddCommand adds a command to the command line, before it runs: the dusk
// binary adds `dusk bench`, which a user's worker binary need not carry.
func AddCommand(c Command) { commands = append(commands, c) }

// usage lists the commands.
func usage() string {
	var b strings.Builder
	b.WriteString("dusk runs the processes of a Dusk cluster.\n\n")
	for _, c := range commands {
		b.WriteString(wrap("dusk "+c.Name+" "+c.Synopsis, "  ", "      ", 78))
		b.WriteString(wrap(c.About, "      ", "      ", 78))
	}
	b.WriteString("\nRun \"dusk COMMAND -h\" for a command's flags.\n")
	return b.String()
}

// wrap breaks s into lines of at most width, the first indented by first,
// the later ones by indent.
func wrap(s, first, indent string, width int) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = first + w
		case len(line)+1+len(w) > width:
			b.WriteString(line + "\n")
			line = indent + w
		default:
			line += " " + w
		}
	}
	return b.String() + line + "\n"
}

// Main runs the command line args (without the program's name) and returns
// the process's exit code. It stops on SIGTERM or SIGINT.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage())
		return 0
	}
	i := slices.IndexFunc(commands, func(c Command) bool { return c.Name == args[0] })
	if i < 0 {
		names := make([]string, len(commands))
		for j, c := range commands {
			names[j] = c.Name
		}
		msg := fmt.Sprintf("dusk: unknown command %q", args[0])
		if near := config.Closest(args[0], names); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		fmt.Fprintf(stderr, "%s\n\n%s", msg, usage())
		return 2
	}
	err := commands[i].Run(ctx, args[1:], stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "dusk %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// schedulerFlags are the flags of `dusk scheduler`.
type schedulerFlags struct {
	fs                           *flag.FlagSet
	host, dash, schedFile, level *string
	contact                      *string
	port, gossip, killed         *int
	noHolder                     *time.Duration
	pprof                        *bool
	sec                          *securityFlags
	// The pool of workers, where the scheduler has a provider.
	provider, workerArgs      *string
	adaptMin, adaptMax, limit *int
	idle                      *time.Duration
	k8sDeployment, k8sNS      *string
	perNode                   *float64
}

// k8sNamespace is --k8s-namespace, "" meaning the scheduler pod's own.
func (sf *schedulerFlags) k8sNamespace() string { return *sf.k8sNS }

func newSchedulerFlags(stderr io.Writer) *schedulerFlags {
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &schedulerFlags{
		fs:            fs,
		host:          fs.String("host", "", "address to serve on (default: every interface)"),
		contact:       fs.String("contact-address", "", "the address workers and clients are told to reach the scheduler at, HOST or HOST:PORT, where it differs from --host (NAT, containers; default: this machine's outward address)"),
		port:          fs.Int("port", 8786, "port to serve on; 0 picks a free one"),
		gossip:        fs.Int("gossip-port", 0, "port of the membership cluster; 0 picks a free one"),
		killed:        fs.Int("killed-worker-limit", 3, "how many workers may die running one task before it fails"),
		noHolder:      fs.Duration("no-holder-timeout", 60*time.Second, "with workers of several binaries: how long a task waits for a worker whose binary registers what it needs, when none here does, before it fails"),
		dash:          fs.String("dashboard-address", "", `address of the dashboard's web pages and /metrics (default: --host's, port `+dashboard.DefaultPort+`); "none" serves none`),
		pprof:         fs.Bool("pprof", false, "serve Go's profiles of the scheduler under /debug/pprof/ on the dashboard's address"),
		schedFile:     fs.String("scheduler-file", "", "write where the scheduler serves to this file (JSON), for workers and clients given --scheduler-file"),
		level:         fs.String("log-level", "info", "debug, info, warn or error"),
		sec:           addSecurityFlags(fs),
		provider:      fs.String("provider", "none", "what starts and stops workers with the load: none, local (processes of this machine) or kubernetes (the worker Deployment)"),
		workerArgs:    fs.String("worker-args", "", `flags of the workers the provider starts, such as "--nthreads 2 --memory-limit 4GiB"`),
		adaptMin:      fs.Int("adapt-min", 0, "fewest workers the provider keeps"),
		adaptMax:      fs.Int("adapt-max", 0, "most workers the provider starts with the load (default --max-workers, else --adapt-min, else 1)"),
		limit:         fs.Int("max-workers", 0, "the most workers the provider ever runs, whatever a client's Adapt asks (0: no cap but --adapt-max)"),
		idle:          fs.Duration("adapt-idle", 10*time.Second, "how long a worker the provider started runs nothing before it is retired"),
		k8sDeployment: fs.String("k8s-deployment", "dusk-worker", "the worker Deployment the kubernetes provider scales"),
		k8sNS:         fs.String("k8s-namespace", "", "its namespace (default: the scheduler pod's)"),
		perNode:       fs.Float64("workers-per-node", 0, "with the kubernetes provider: keep this many workers per ready node (Pachyderm's coefficient parallelism), counted again every 30s"),
	}
}

// The flags of each command, for the configuration file's keys.
func init() {
	for cmd, flags := range commandFlags {
		config.Register(cmd, flags)
	}
}

var commandFlags = config.Commands{
	"scheduler": func() *flag.FlagSet { return newSchedulerFlags(io.Discard).fs },
	"cluster": func() *flag.FlagSet {
		fs := newSchedulerFlags(io.Discard).fs
		fs.Int("workers", 0, "")
		return fs
	},
	"worker": func() *flag.FlagSet { return newWorkerFlags(io.Discard).fs },
}

// parseFlags fills fs from the configuration file, the environment and args.
func parseFlags(cmd string, fs *flag.FlagSet, args []string) error {
	_, err := config.Parse(cmd, fs, args, os.Environ())
	return err
}

func runScheduler(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sf := newSchedulerFlags(stderr)
	if err := parseFlags("scheduler", sf.fs, args); err != nil {
		return err
	}
	return serveScheduler(ctx, sf, strings.Fields(*sf.workerArgs), stdout, stderr)
}

// runCluster runs `dusk cluster`: a scheduler that starts its workers as
// processes of this machine, --workers of them, or between --adapt-min and
// --adapt-max with the load. Flags after "--" are the workers'.
func runCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sf := newSchedulerFlags(stderr)
	sf.fs.Init("cluster", flag.ContinueOnError)
	workers := sf.fs.Int("workers", runtime.NumCPU(), "workers to keep, unless --adapt-min and --adapt-max say otherwise")
	if err := parseFlags("cluster", sf.fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	sf.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["adapt-min"] && !set["adapt-max"] {
		*sf.adaptMin, *sf.adaptMax = *workers, *workers
	}
	*sf.provider = "local"
	return serveScheduler(ctx, sf, append(strings.Fields(*sf.workerArgs), sf.fs.Args()...), stdout, stderr)
}

// serveScheduler runs the scheduler sf describes until ctx ends; a
// provider's workers take workerArgs.
func serveScheduler(ctx context.Context, sf *schedulerFlags, workerArgs []string, stdout, stderr io.Writer) error {
	log, err := newLogger(stderr, *sf.level)
	if err != nil {
		return err
	}
	// The scheduler's process is Dusk's own too: a graph of a million tasks
	// left a heap of twice its live size under Go's default (GOGC 100).
	gctune.Tune(gctune.SchedulerGC)
	tl, gossipKey, err := sf.sec.load()
	if err != nil {
		return err
	}
	if gossipKey == nil && tl != nil {
		// Workers get it in their welcome, over TLS.
		gossipKey = security.NewGossipKey()
	}
	var logs *dashboard.Logs
	if *sf.dash != "none" {
		logs = dashboard.NewLogs(dashboard.LogsKept)
		log = slog.New(logs.Handler(log.Handler()))
	}
	// Gossip binds where --host says, or on the outward address; peers are
	// told --contact-address, else that.
	bind := specific(*sf.host)
	if bind == "" {
		bind, _ = outwardHost("")
	}
	advertise := bind
	if *sf.contact != "" {
		advertise = contactHost(*sf.contact)
	}
	var sched *server.Scheduler
	members, err := membership.Start(membership.Config{
		Name: "scheduler", Host: bind, Advertise: advertise, Port: *sf.gossip, Log: log, Key: gossipKey,
		OnLeave: func(name string) {
			if sched != nil && name != "scheduler" && sched.DropWorker(protocol.WorkerID(name)) {
				// Still connected when the membership lost it: not a worker
				// that retired or whose stream ended first.
				log.Warn("worker left the membership cluster", "worker", name)
			}
		},
	})
	if err != nil {
		return err
	}
	defer members.Leave()
	g := server.Gossip{Addr: members.Addr()}
	if tl != nil {
		g.Key = gossipKey // only TLS keeps it secret on its way
	}
	sched, err = server.StartScheduler(&grpcnet.Network{TLS: tl, Log: log}, net.JoinHostPort(*sf.host, strconv.Itoa(*sf.port)), g,
		scheduler.Config{KilledWorkerLimit: *sf.killed, NoHolderTimeout: *sf.noHolder}, log)
	if err != nil {
		return err
	}
	addr := contactOr(*sf.contact, dialable(sched.Addr(), advertise))
	fmt.Fprintf(stdout, "dusk scheduler at %s\n", addr)
	var dashAt string
	if *sf.dash != "none" {
		// By default where the gRPC port binds; the default port falls back
		// to a free one, as Dask's does.
		dashAddr, fallback := *sf.dash, *sf.dash == ""
		if fallback {
			dashAddr = net.JoinHostPort(*sf.host, dashboard.DefaultPort)
		}
		srv, at, err := dashboard.Serve(sched, dashboard.Config{Addr: dashAddr, Fallback: fallback, Pprof: *sf.pprof, Log: log, Logs: logs})
		if err != nil {
			return err
		}
		defer srv.Close()
		at = dialable(at, advertise)
		sched.SetDashboard(at, logs)
		dashAt = at
		fmt.Fprintf(stdout, "dusk dashboard at http://%s/status\n", at)
	}
	if *sf.schedFile != "" {
		if err := server.WriteSchedulerFile(*sf.schedFile, server.SchedulerFile{Address: addr, Dashboard: dashAt}); err != nil {
			return err
		}
	}
	if *sf.provider != "none" {
		prov, err := newProvider(sf, addr, workerArgs, stderr)
		if err != nil {
			return err
		}
		defer prov.Close()
		hi := *sf.adaptMax
		if hi == 0 {
			hi = max(*sf.limit, *sf.adaptMin, 1)
		}
		if *sf.limit > 0 {
			hi = min(hi, *sf.limit)
		}
		a := adapt.New(adapt.Policy{Min: min(*sf.adaptMin, hi), Max: hi, IdleAfter: *sf.idle})
		sched.SetAdaptive(a, *sf.limit, nil)
		if k, ok := prov.(*kube.Provider); ok && *sf.perNode > 0 {
			go perNode(ctx, k, a, *sf.perNode, *sf.limit, log)
		}
		go adapt.Run(ctx, a, sched.Load, prov, log)
	}
	log.Info("serving", "addr", addr, "gossip", members.Addr(), "protocol", protocol.Version)
	<-ctx.Done()
	log.Info("shutting down")
	return sched.Close()
}

// perNode keeps the pool at c workers per node the provider counts, as
// nodes come and go (capped by limit when set).
func perNode(ctx context.Context, k *kube.Provider, a *adapt.Adaptive, c float64, limit int, log *slog.Logger) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		if nodes, err := k.Nodes(ctx); err != nil {
			log.Warn("adaptive: could not count nodes", "err", err)
		} else {
			n := max(1, int(math.Ceil(c*float64(nodes))))
			if limit > 0 {
				n = min(n, limit)
			}
			if p := a.Policy(); p.Min != n || p.Max != n {
				log.Info("adaptive: workers per node", "nodes", nodes, "per_node", c, "workers", n)
				a.SetBounds(n, n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// provider is an adapt.Provider that can be shut.
type provider interface {
	adapt.Provider
	Close()
}

// newProvider makes the provider named: local processes of this binary,
// as `dusk worker` with workerArgs, or the pods of a Kubernetes Deployment.
// Local workers present the scheduler's own TLS certificate.
func newProvider(sf *schedulerFlags, schedAddr string, workerArgs []string, stderr io.Writer) (provider, error) {
	kind, tls := *sf.provider, sf.sec.files
	switch kind {
	case "local":
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("--provider local: %w", err)
		}
		cmd := []string{exe, "worker", "--scheduler", schedAddr}
		if tls.Enabled() {
			cmd = append(cmd, "--tls-ca-file", tls.CA, "--tls-cert", tls.Cert, "--tls-key", tls.Key)
		}
		return &adapt.Processes{Command: append(cmd, workerArgs...), Prefix: "worker", Output: stderr}, nil
	case "kubernetes":
		return kube.InCluster(sf.k8sNamespace(), *sf.k8sDeployment)
	}
	return nil, fmt.Errorf("--provider %q: want none, local or kubernetes", kind)
}

// workerFlags are the flags of `dusk worker`.
type workerFlags struct {
	fs                                 *flag.FlagSet
	sched, schedFile, host, memLimit   *string
	contact                            *string
	gossip                             *int
	resources                          *string
	name, localDir, compression, level *string
	spillCompression, dash             *string
	port, nthreads                     *int
	connect                            *time.Duration
	target, spill, pause, terminate    *float64
	noNanny, pprof                     *bool
	sec                                *securityFlags
	allowPaths                         pathList
}

func newWorkerFlags(stderr io.Writer) *workerFlags {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := worker.DefaultFractions
	f := &workerFlags{
		fs:               fs,
		sched:            fs.String("scheduler", "", "the scheduler's address, HOST:PORT (or --scheduler-file)"),
		schedFile:        fs.String("scheduler-file", "", "a file the scheduler writes its address to (its --scheduler-file), read instead of --scheduler"),
		host:             fs.String("host", "", "address to serve data on (default: the one that reaches the scheduler)"),
		contact:          fs.String("contact-address", "", "the address peers are told to reach this worker at, HOST or HOST:PORT, where it differs from --host (NAT, containers)"),
		gossip:           fs.Int("gossip-port", 0, "port of the worker's membership gossip; 0 picks a free one"),
		port:             fs.Int("port", 0, "port to serve data on; 0 picks a free one"),
		nthreads:         fs.Int("nthreads", runtime.NumCPU(), "tasks to run at once"),
		memLimit:         fs.String("memory-limit", "", "memory the worker may use, as 4GiB or 512MB (default: the machine's memory)"),
		target:           fs.Float64("memory-target", d.Target, "fraction of the limit of results in memory past which the least recently used go to disk"),
		spill:            fs.Float64("memory-spill", d.Spill, "fraction of the limit of process memory past which results go to disk until under the target"),
		pause:            fs.Float64("memory-pause", d.Pause, "fraction of the limit of process memory past which the worker takes no new task"),
		terminate:        fs.Float64("memory-terminate", d.Terminate, "fraction of the limit of process memory past which the nanny restarts the worker"),
		spillCompression: fs.String("spill-compression", "auto", "compress results spilled to disk: auto (s2), s2, zstd or none"),
		noNanny:          fs.Bool("no-nanny", false, "run the worker in this process, without a nanny to restart it"),
		resources:        fs.String("resources", "", "what the worker offers, as GPU=1,FOO=2 (default: GPU=n on a machine with n GPUs)"),
		name:             fs.String("name", "", "a name for logs and listings"),
		localDir:         fs.String("local-directory", "dusk-worker-space", "directory for the worker's files, spilled results among them (created if missing)"),
		connect:          new(time.Duration),
		compression:      fs.String("compression", "auto", "compress results sent to peers: auto (only to other machines), lz4 or none"),
		level:            fs.String("log-level", "info", "debug, info, warn or error"),
		dash:             fs.String("dashboard-address", "", `address of the worker's /metrics (default: where it serves data, a free port); "none" serves none`),
		pprof:            fs.Bool("pprof", false, "serve Go's profiles of the worker under /debug/pprof/ on its dashboard address"),
	}
	f.sec = addSecurityFlags(fs)
	fs.Var(&f.allowPaths, "allow-path", "a directory or URL prefix (s3://bucket/) tasks may read and write under; repeat it for more (default: any)")
	// --death-timeout, as Dask names it, and its older name on one value.
	fs.DurationVar(f.connect, "death-timeout", 60*time.Second, "how long to keep trying to reach the scheduler before giving up")
	fs.DurationVar(f.connect, "connect-timeout", 60*time.Second, "the same as --death-timeout")
	return f
}

func (f *workerFlags) fractions() worker.Fractions {
	return worker.Fractions{Target: *f.target, Spill: *f.spill, Pause: *f.pause, Terminate: *f.terminate}
}

// memoryLimit is --memory-limit in bytes, by default the machine's memory.
func (f *workerFlags) memoryLimit() (int64, error) {
	if *f.memLimit == "" {
		return procmem.Total(), nil
	}
	limit, err := parseBytes(*f.memLimit)
	if err != nil {
		return 0, fmt.Errorf("--memory-limit: %w", err)
	}
	return limit, nil
}

func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newWorkerFlags(stderr)
	if err := parseFlags("worker", f.fs, args); err != nil {
		return err
	}
	if (*f.sched == "") == (*f.schedFile == "") {
		return errors.New("one of --scheduler HOST:PORT and --scheduler-file FILE is required")
	}
	log, err := newLogger(stderr, *f.level)
	if err != nil {
		return err
	}
	res, err := parseResources(*f.resources)
	if err != nil {
		return err
	}
	if _, given := res["GPU"]; !given {
		// A worker on a machine with GPUs offers them unless told otherwise
		// (--resources GPU=0).
		if n := gpu.Count(); n > 0 {
			res["GPU"] = float64(n)
		}
	}
	comp, err := grpcnet.ParseCompression(*f.compression)
	if err != nil {
		return fmt.Errorf("--compression: %w", err)
	}
	spillComp, err := store.ParseCompression(*f.spillCompression)
	if err != nil {
		return fmt.Errorf("--spill-compression: %w", err)
	}
	limit, err := f.memoryLimit()
	if err != nil {
		return err
	}
	tl, gossipKey, err := f.sec.load()
	if err != nil {
		return err
	}
	if _, err := os.Stat(*f.localDir); os.IsNotExist(err) {
		// Made for this worker, so removed with it when left empty (another
		// worker may share it).
		defer os.Remove(*f.localDir)
	}
	if err := os.MkdirAll(*f.localDir, 0o755); err != nil {
		return fmt.Errorf("--local-directory: %w", err)
	}
	if !*f.noNanny {
		return runNanny(ctx, args, limit, f.fractions(), *f.localDir, stdout, stderr, log)
	}
	if limit > 0 {
		res["memory"] = float64(limit)
	}
	if err := storage.AllowOnly(f.allowPaths); err != nil {
		return err
	}
	gctune.Tune(gctune.DataGC)
	process.LimitGoMemory(limit, f.fractions())
	// The worker lives until told to stop or until its nanny goes; the
	// scheduler is waited for, file and all, for --death-timeout.
	gone := nannyGone()
	life, endLife := context.WithCancel(ctx)
	defer endLife()
	if gone != nil {
		go func() {
			select {
			case <-gone:
				endLife()
			case <-life.Done():
			}
		}()
	}
	cctx, cancel := context.WithTimeout(life, *f.connect)
	defer cancel()
	schedAddr := *f.sched
	if *f.schedFile != "" {
		if schedAddr, err = server.ReadSchedulerFile(cctx, *f.schedFile); err != nil {
			return err
		}
	}
	// The worker binds where --host says, or on its address toward the
	// scheduler (waited for while there is no route: never a loopback
	// address for a scheduler elsewhere); peers are told
	// --contact-address, else that.
	bind := specific(*f.host)
	if bind == "" {
		if bind, err = waitOutward(cctx, schedAddr, log); err != nil {
			return err
		}
	}
	advertise := bind
	if *f.contact != "" {
		advertise = contactHost(*f.contact)
	}
	listen := *f.host
	if listen == "" {
		listen = bind
	}
	// The worker's lines go to the scheduler's Logs page too.
	logs := dashboard.NewLogs(dashboard.LogsKept)
	log = slog.New(logs.Handler(log.Handler()))
	restarted, restarts, kills := restartsFromNanny()
	var dashLn net.Listener
	var dashAt string
	if *f.dash != "none" {
		dashAddr := *f.dash
		if dashAddr == "" {
			dashAddr = net.JoinHostPort(listen, "0") // where it serves data
		}
		if dashLn, err = net.Listen("tcp", dashAddr); err != nil {
			return fmt.Errorf("--dashboard-address: %w", err)
		}
		defer dashLn.Close()
		dashAt = dialable(dashLn.Addr().String(), advertise)
	}
	network := &grpcnet.Network{Compression: comp, TLS: tl, Log: log, Wire: &grpcnet.Wire{}}
	wcfg := process.WorkerConfig{
		Addr: net.JoinHostPort(listen, strconv.Itoa(*f.port)), Advertise: contactOr(*f.contact, advertise),
		Name: *f.name, NThreads: *f.nthreads, Resources: res,
		MemoryLimit: limit, Fractions: f.fractions(), LocalDirectory: *f.localDir, SpillCompression: spillComp,
		Logs: logs, Dashboard: dashAt, Restarted: restarted,
	}
	cur := &currentWorker{}
	// The worker outlives its scheduler: when the scheduler goes away, the
	// worker drops what it holds and joins the one that comes back at the
	// same address, waiting for it as long as --death-timeout allows.
	for {
		w, err := process.StartWorker(cctx, network, schedAddr, wcfg, log)
		cancel()
		if err != nil {
			switch {
			case isClosed(gone):
				return errors.New("the nanny went away")
			case ctx.Err() != nil: // told to stop while it waited for the scheduler: no failure
				log.Info("stopped before joining the scheduler", "scheduler", schedAddr)
				return nil
			}
			return err
		}
		cur.set(w)
		wlog := log.With("worker", w.ID(), "name", *f.name)
		if dashLn != nil && !cur.served {
			srv := dashboard.ServeWorker(dashLn, cur, dashboard.WorkerConfig{Pprof: *f.pprof, Threads: *f.nthreads,
				Restarts: restarts, Kills: kills, Log: log})
			defer srv.Close()
			cur.served = true
			fmt.Fprintf(stdout, "dusk worker metrics at http://%s/metrics\n", dashAt)
		}
		members, err := joinGossip(w, gossipKey, membership.Config{Host: bind, Port: *f.gossip, Advertise: advertise}, wlog)
		if err != nil {
			w.Close()
			return err
		}
		fmt.Fprintf(stdout, "dusk worker at %s\n", w.ID())
		wlog.Info("serving", "threads", *f.nthreads, "resources", graph.Resources(res).String(),
			"memory_limit", worker.FormatBytes(limit), "dir", *f.localDir, "allowed_paths", strings.Join(f.allowPaths, ","))
		select {
		case <-ctx.Done():
			wlog.Info("retiring: handing results only this worker holds to others")
			rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := w.Retire(rctx); err != nil {
				wlog.Warn("retired before every copy was made", "err", err)
			}
			members.Leave()
			return nil
		case <-gone:
			w.Close()
			members.Leave()
			return errors.New("the nanny went away")
		case <-w.Done():
		}
		w.Close()
		members.Leave()
		wlog.Warn("lost the scheduler: its results are dropped; joining the scheduler that comes back", "scheduler", schedAddr, "death_timeout", *f.connect)
		wcfg.Restarted = ""
		cctx, cancel = context.WithTimeout(life, *f.connect)
	}
}

// isClosed reports whether c is closed (a nil channel never is).
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// joinGossip joins the scheduler's membership cluster, if it runs one, with
// the worker's own key or else the one the scheduler handed over. Leave on
// the result is safe when there is none.
func joinGossip(w *process.Worker, own []byte, cfg membership.Config, log *slog.Logger) (*membership.Members, error) {
	at, key := w.Gossip()
	if at == "" {
		return nil, nil
	}
	if own != nil {
		key = own
	}
	cfg.Name, cfg.Log, cfg.Key = string(w.ID()), log, key
	m, err := membership.Start(cfg)
	if err != nil {
		return nil, err
	}
	if err := m.Join(at); err != nil {
		m.Leave()
		return nil, err
	}
	return m, nil
}

// currentWorker is the worker this process runs now, for its metrics port,
// which outlives each one: a reconnection replaces it.
type currentWorker struct {
	mu     sync.Mutex
	w      *process.Worker
	onTask []func(protocol.TaskRecord)
	served bool // its port serves
}

func (c *currentWorker) set(w *process.Worker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w = w
	for _, f := range c.onTask {
		w.OnTask(f)
	}
}

func (c *currentWorker) get() *process.Worker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w
}

func (c *currentWorker) ID() protocol.WorkerID           { return c.get().ID() }
func (c *currentWorker) Metrics() protocol.WorkerMetrics { return c.get().Metrics() }
func (c *currentWorker) Pauses() int64                   { return c.get().Pauses() }

func (c *currentWorker) OnTask(f func(protocol.TaskRecord)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onTask = append(c.onTask, f)
	c.w.OnTask(f)
}

// runConfig runs `dusk config [COMMAND] [FLAGS]`: the effective flags of
// each command (or of the one named, with FLAGS as it would be given them),
// as YAML that a configuration file can hold, each value with its source.
func runConfig(args []string, stdout, stderr io.Writer) error {
	commands := config.Registered()
	names := slices.Sorted(maps.Keys(commands))
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if commands[args[0]] == nil {
			return fmt.Errorf("no command %q: want one of %s", args[0], strings.Join(names, ", "))
		}
		names, args = args[:1], args[1:]
	}
	for _, cmd := range names {
		fs := commands[cmd]()
		fs.SetOutput(stderr)
		settings, err := config.Parse(cmd, fs, args, os.Environ())
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s:\n", cmd)
		for _, s := range settings {
			if s.Flag == config.ConfigFlag {
				continue
			}
			v := strconv.Quote(s.Value)
			if s.IsList {
				quoted := make([]string, len(s.List))
				for i, p := range s.List {
					quoted[i] = strconv.Quote(p)
				}
				v = "[" + strings.Join(quoted, ", ") + "]"
			}
			fmt.Fprintf(stdout, "  %-36s # %s\n", s.Flag+": "+v, s.From)
		}
	}
	return nil
}

// runTLS runs `dusk tls init DIR`.
func runTLS(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "init" {
		return errors.New("usage: dusk tls init DIR [--days 365]")
	}
	fs := flag.NewFlagSet("tls init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	days := fs.Int("days", 365, "how long the certificates stay valid (the CA: ten years)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: dusk tls init DIR [--days 365]")
	}
	dir := fs.Arg(0)
	files, err := security.Init(dir, time.Duration(*days)*24*time.Hour)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote a CA (%s, its key beside it: keep that one off the cluster) and certificates for:\n", files["client"].CA)
	for _, role := range security.Roles {
		fmt.Fprintf(stdout, "  %-9s --tls-ca-file %s --tls-cert %s --tls-key %s\n", role, files[role].CA, files[role].Cert, files[role].Key)
	}
	return nil
}

// pathList is a repeatable flag's values.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(v string) error { *p = append(*p, v); return nil }
func (p *pathList) Reset()             { *p = nil } // a later source replaces the list
func (p *pathList) Get() any           { return []string(*p) }

// securityFlags are the TLS and gossip-key flags of the daemons.
type securityFlags struct {
	files  security.Files
	gossip *string
}

func addSecurityFlags(fs *flag.FlagSet) *securityFlags {
	sf := &securityFlags{}
	security.AddFlags(fs, &sf.files)
	sf.gossip = fs.String("gossip-key", "", "base64 key of 16, 24 or 32 bytes that encrypts the membership cluster's gossip (with TLS, the scheduler makes one and hands it to its workers)")
	return sf
}

// load reads the TLS material (nil without --tls-*) and the gossip key (nil
// without --gossip-key).
func (sf *securityFlags) load() (*security.TLS, []byte, error) {
	var key []byte
	if *sf.gossip != "" {
		k, err := security.ParseGossipKey(*sf.gossip)
		if err != nil {
			return nil, nil, err
		}
		key = k
	}
	if !sf.files.Enabled() {
		return nil, key, nil
	}
	tl, err := security.Load(sf.files)
	return tl, key, err
}

// outwardHost is this machine's address toward addr (the scheduler's) or,
// given "", toward the outside: the one that the route there leaves from,
// as Dask picks it. With no route to a scheduler on another machine there
// is no answer yet (a worker waits for one): a loopback address would
// reach nobody. Without a route to the outside, a scheduler takes the
// first address of an interface that is up and not loopback, and loopback
// only on a machine with none.
func outwardHost(addr string) (string, error) {
	if addr != "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return "", fmt.Errorf("the scheduler's address %q: %w", addr, err)
		}
		if transport.Loopback(host) {
			return "127.0.0.1", nil
		}
		c, err := net.Dial("udp", addr) // no packet is sent: this only picks a route
		if err != nil {
			return "", fmt.Errorf("no route from this machine to the scheduler at %s: %w", addr, err)
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).IP.String(), nil
	}
	if c, err := net.Dial("udp", "192.0.2.1:9"); err == nil {
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).IP.String(), nil
	}
	if ip := interfaceIP(); ip != "" {
		return ip, nil
	}
	return "127.0.0.1", nil
}

// interfaceIP is the first IPv4 address, else IPv6, of an interface that
// is up and not loopback, or "".
func interfaceIP() string {
	ifaces, err := net.Interfaces()
	if err != nil {
		return ""
	}
	var v6 string
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || !ipn.IP.IsGlobalUnicast() {
				continue
			}
			if ipn.IP.To4() != nil {
				return ipn.IP.String()
			}
			if v6 == "" {
				v6 = ipn.IP.String()
			}
		}
	}
	return v6
}

// waitOutward is outwardHost toward the scheduler at addr, tried again
// until there is a route or ctx ends: a worker started (or restarted by its
// nanny) while its link is down waits for the link.
func waitOutward(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	for logged := false; ; logged = true {
		host, err := outwardHost(addr)
		if err == nil {
			return host, nil
		}
		if !logged {
			log.Info("waiting for a route to the scheduler", "err", err)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w (gave up after --death-timeout)", err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// specific is host, unless it means every interface ("", 0.0.0.0, ::).
func specific(host string) string {
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return ""
	}
	return host
}

// contactHost is the host part of --contact-address (HOST or HOST:PORT).
func contactHost(contact string) string {
	if h, _, err := net.SplitHostPort(contact); err == nil {
		return h
	}
	return contact
}

// contactOr is --contact-address when it has a port (the daemon is then
// known by it whole), else host.
func contactOr(contact, host string) string {
	if _, _, err := net.SplitHostPort(contact); err == nil {
		return contact
	}
	return host
}

// dialable replaces an unspecified host in addr by advertise.
func dialable(addr, advertise string) string {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(h); ip == nil || ip.IsUnspecified() {
		h = advertise
	}
	return net.JoinHostPort(h, p)
}

// parseResources reads "GPU=1,FOO=2".
func parseResources(s string) (map[string]float64, error) {
	res := map[string]float64{}
	if s == "" {
		return res, nil
	}
	for _, kv := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		amount, err := strconv.ParseFloat(v, 64)
		if !ok || name == "" || err != nil || amount < 0 {
			return nil, fmt.Errorf("--resources: %q is not NAME=AMOUNT", kv)
		}
		res[name] = amount
	}
	return res, nil
}

// parseBytes reads sizes such as 4GiB, 512MB, 1.5G or 2000000000.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1}}
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a size such as 4GiB or 512MB", s)
	}
	return int64(v * mult), nil
}
