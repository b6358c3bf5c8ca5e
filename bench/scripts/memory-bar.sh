#!/usr/bin/env bash
# memory-bar.sh: issue 23's bar for memory admission, run as a user would.
# One `dusk worker --memory-limit 512MiB --nthreads 2` (with its nanny)
# persists db-benchmark's 0.5 GB groupby CSV (1e7 rows) and answers q1, RUNS
# times, while two busy loops keep both cores busy. It prints each run's
# answer and time, the restarts the nanny made, and the worker's peak RSS.
#
#   bench/scripts/memory-bar.sh DUSK_BINARY DATA_DIR [RUNS]
#
# DATA_DIR holds G1_1e7_1e2_0_0.csv (written there if absent).
set -u
BIN=$(realpath "$1"); DATA=$2; RUNS=${3:-10}
WORK=$(mktemp -d)
PORT=${PORT:-8799}
BUSY=""
cleanup() {
	[ -n "$BUSY" ] && kill $BUSY 2>/dev/null
	pkill -f "$BIN (scheduler|worker) .*$PORT" 2>/dev/null
	pkill -P $$ 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
[ -f "$DATA/G1_1e7_1e2_0_0.csv" ] || "$BIN" bench gen --rows 1e7 --data "$DATA" >/dev/null
"$BIN" scheduler --port "$PORT" --gossip-port 0 >"$WORK/sched.log" 2>&1 &
"$BIN" worker --scheduler 127.0.0.1:$PORT --memory-limit 512MiB --nthreads 2 \
	--local-directory "$WORK/ws" >"$WORK/worker.log" 2>&1 &
until grep -q "dusk worker at" "$WORK/worker.log"; do sleep 0.2; done
for i in 1 2; do
	sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
	BUSY="$BUSY $!"
done
ok=0
for i in $(seq 1 "$RUNS"); do
	if "$BIN" bench groupby --rows 1e7 --data "$DATA" --scheduler 127.0.0.1:$PORT \
		--questions q1 >"$WORK/out-$i.txt" 2>&1; then
		ok=$((ok + 1))
	fi
	echo "run $i: $(grep -E '^(load|q1) ' "$WORK/out-$i.txt" | awk '{printf "%s %s %ss %s; ", $1, $2, $3, ($1 == "q1" ? "sum " $NF : "")}') $(grep -o 'dusk bench:.*' "$WORK/out-$i.txt")"
done
echo "runs that completed: $ok of $RUNS"
echo "restarts: $(grep -c 'exceeded its memory' "$WORK/worker.log")"
for p in $(pgrep -f "$BIN worker --scheduler 127.0.0.1:$PORT"); do
	echo "pid $p $(grep VmHWM /proc/$p/status)"
done
