package dusk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/worker/report"
)

// PerformanceReport runs run with ctx, whose client (WithClient) is the
// cluster's, and writes what the cluster did meanwhile to path as one
// self-contained HTML file, as Dask's performance_report: the task stream
// (tasks, transfers, spills), time by task kind, each worker's share, and
// the workers' CPU profile merged, with a link to it for go tool pprof.
// It returns run's error; the report is written all the same. If the
// recording cannot start (no client, the scheduler gone), run is not run.
func PerformanceReport(ctx context.Context, path string, run func(ctx context.Context) error) error {
	c, err := clientFrom(ctx)
	if err != nil {
		return fmt.Errorf("dusk: performance report: %w", err)
	}
	r, err := c.recordRun(ctx, run)
	if r.Start.IsZero() {
		return err // the recording did not start: run did not either
	}
	f, ferr := os.Create(path)
	if ferr == nil {
		ferr = report.Write(f, r)
		if cerr := f.Close(); ferr == nil {
			ferr = cerr
		}
	}
	if ferr != nil {
		ferr = fmt.Errorf("dusk: performance report %s: %w", path, ferr)
	}
	return errors.Join(err, ferr)
}

// recordRun runs run with the workers profiling, and returns what the
// task stream and the profiles say of it, and run's error or the
// recording's.
func (c *Client) recordRun(ctx context.Context, run func(ctx context.Context) error) (report.Run, error) {
	var r report.Run
	first, err := c.streamFrom(ctx, math.MaxUint64)
	if err != nil {
		return r, fmt.Errorf("dusk: performance report: %w", err)
	}
	if r.Before, err = c.Workers(ctx); err != nil {
		return r, fmt.Errorf("dusk: performance report: %w", err)
	}
	if err := c.send([]protocol.Msg{&protocol.Profile{Start: true}}); err != nil {
		return r, fmt.Errorf("dusk: performance report: %w", err)
	}
	r.Start = time.Now()
	r.Err = run(ctx)
	r.Stop = time.Now()
	// The profiles come after each worker's last report: once they are
	// here, so are its transfers and spills.
	m, err := c.query(ctx, func(id uint64) protocol.Msg { return &protocol.Profile{ID: id} })
	if err != nil {
		return r, errors.Join(r.Err, fmt.Errorf("dusk: performance report: stop the profiles: %w", err))
	}
	r.Profiles = m.(*protocol.ProfileReply).Profiles
	reply, err := c.streamFrom(ctx, first.Next)
	if err == nil {
		r.Workers, err = c.Workers(ctx)
	}
	if err != nil {
		return r, errors.Join(r.Err, fmt.Errorf("dusk: performance report: %w", err))
	}
	r.Records = reply.Records
	if kept := uint64(len(reply.Records)); reply.Next-first.Next > kept {
		r.Lost = reply.Next - first.Next - kept
	}
	return r, r.Err
}

// streamFrom asks for the task stream's records from since on, leaving
// alone where TaskStream goes on from.
func (c *Client) streamFrom(ctx context.Context, since uint64) (*protocol.TaskStreamReply, error) {
	m, err := c.query(ctx, func(id uint64) protocol.Msg { return &protocol.TaskStreamQuery{ID: id, Since: since} })
	if err != nil {
		return nil, err
	}
	return m.(*protocol.TaskStreamReply), nil
}
