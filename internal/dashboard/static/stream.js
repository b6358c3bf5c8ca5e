// The task stream's drawing and the colours of task kinds, shared by the
// dashboard's pages and the performance report, so that both draw a run
// alike.
"use strict";

// ioColours are the colours of what is not a task run, as Dask's task
// stream draws them: transfers red, disk I/O orange.
const ioColours = { "transfer": "#d62728", "disk-write": "#ff7f0e", "disk-read": "#e6a23c" };

// colour gives each task kind its own colour, the same on every page.
function colour(prefix) {
  if (ioColours[prefix]) return ioColours[prefix];
  let h = 0;
  for (const c of prefix) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${h % 360}, 60%, 52%)`;
}

// drawBars draws records as bars on canvas: a row per entry of rows
// ("worker/thread", each worker's transfers and disk I/O on thread -1), of
// height maxH at most so that all fit in about maxTotal pixels, from x(start)
// to x(stop). It sizes the canvas only when its size changes (resizing
// clears and resets it), and returns the context and the rows' height, for
// the caller's axis under them.
function drawBars(canvas, rows, records, x, maxH, maxTotal) {
  const width = canvas.clientWidth;
  const rowH = Math.max(3, Math.min(maxH, Math.floor(maxTotal / Math.max(rows.length, 1))));
  const height = rows.length * rowH + 20;
  if (canvas.width !== width * devicePixelRatio || canvas.height !== height * devicePixelRatio) {
    canvas.width = width * devicePixelRatio;
    canvas.height = height * devicePixelRatio;
    canvas.style.height = height + "px";
  }
  const g = canvas.getContext("2d");
  g.setTransform(devicePixelRatio, 0, 0, devicePixelRatio, 0, 0);
  g.clearRect(0, 0, width, height);
  const index = new Map(rows.map((r, i) => [r, i]));
  for (const r of records) {
    const i = index.get(r.worker + "/" + r.thread);
    if (i === undefined) continue;
    g.fillStyle = colour(r.prefix);
    g.fillRect(x(r.start), i * rowH + 1, Math.max(1, x(r.stop) - x(r.start)), rowH - 2);
  }
  g.fillStyle = "#666";
  g.font = "11px system-ui";
  return { g, axisY: rows.length * rowH + 14 };
}
