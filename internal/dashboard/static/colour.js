// The colours of task kinds, shared by the dashboard's pages and the
// performance report, so that a kind has the same colour in both.
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
