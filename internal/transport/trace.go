package transport

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/duskdata/dusk/internal/protocol"
)

// LogMsgs logs each of msgs at debug level, with what it concerns: a
// trace of the protocol, for a query that stalls (--log-level debug).
func LogMsgs(log *slog.Logger, dir, peer string, msgs []protocol.Msg) {
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	for _, m := range msgs {
		log.Debug(dir, "peer", peer, "msg", summary(m))
	}
}

// summary is a message's kind and what it concerns, in a few words.
func summary(m protocol.Msg) string {
	switch m := m.(type) {
	case *protocol.ComputeTask:
		return fmt.Sprintf("ComputeTask %s run %d", m.Spec.Key(), m.Run)
	case *protocol.TaskFinished:
		return fmt.Sprintf("TaskFinished %s run %d", m.Key, m.Run)
	case *protocol.TaskErred:
		return fmt.Sprintf("TaskErred %s run %d", m.Key, m.Run)
	case *protocol.FreeKeys:
		return fmt.Sprintf("FreeKeys %v", m.Keys)
	case *protocol.StealRequest:
		return fmt.Sprintf("StealRequest %s", m.Key)
	case *protocol.StealResponse:
		return fmt.Sprintf("StealResponse %s given %v", m.Key, m.Given)
	case *protocol.MissingData:
		return fmt.Sprintf("MissingData %s from %s run %d", m.Key, m.From, m.Run)
	case *protocol.AddKeys:
		return fmt.Sprintf("AddKeys %v", m.Keys)
	case *protocol.ReleasedData:
		return fmt.Sprintf("ReleasedData %v", m.Keys)
	}
	return fmt.Sprintf("%T", m)
}
