// The dashboard's pages: one event stream (/api/events) feeds them, a
// status a half second. The page shown is the path's ("/status").
"use strict";

const page = location.pathname.replace(/^\//, "") || "status";
document.getElementById(page).hidden = false;
document.getElementById("nav-" + page)?.classList.add("current");

const fractions = { target: 0.6, spill: 0.7, pause: 0.8, terminate: 0.95 };
const streamWindow = 10000; // ms of task stream shown
const recordsKept = 2000;   // at most, the latest: as Dask draws its last 1,000 rectangles
const records = [];         // the task stream's records in the window
const rates = [[], []];     // tasks per second over the last minute
let lastStatus = null;
let lastTime = Date.now(); // the scheduler's clock at the last update

function bytes(n) {
  if (!n) return "0 B";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(n < 10 ? 1 : 0) : n) + " " + u[i];
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "style") e.style.cssText = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

function drawProgress(progress) {
  const box = document.getElementById("progress");
  box.replaceChildren();
  for (const p of progress) {
    const total = p.Waiting + p.Processing + p.Memory + p.Done + p.Erred;
    const bar = el("div", { class: "bar" });
    let at = 0;
    for (const [n, cls] of [[p.Done, "done"], [p.Memory, "inmem"], [p.Processing, "proc"], [p.Erred, "erred"]]) {
      const w = total ? 100 * n / total : 0;
      bar.append(el("span", { class: cls, style: `left:${at}%;width:${w}%` }));
      at += w;
    }
    box.append(el("div", { class: "bar-row progress-row", "data-prefix": p.Prefix },
      el("span", { style: `border-left: 6px solid ${colour(p.Prefix)}; padding-left: 4px` }, p.Prefix),
      bar, `${p.Done + p.Memory} / ${total}` + (p.Erred ? ` (${p.Erred} erred)` : "")));
  }
  if (!progress.length) box.append(el("p", { class: "legend" }, "no tasks"));
}

function drawMemory(workers) {
  const box = document.getElementById("memory");
  box.replaceChildren();
  for (const w of workers) {
    const m = w.Memory, limit = m.Limit || Math.max(m.Process, 1);
    const bar = el("div", { class: "bar" });
    const managed = Math.min(m.Managed, m.Process || m.Managed);
    bar.append(el("span", { class: "managed", style: `left:0;width:${100 * managed / limit}%` }));
    bar.append(el("span", { class: "unmanaged", style: `left:${100 * managed / limit}%;width:${100 * w.unmanaged / limit}%` }));
    // What is on disk, after what is in memory, as far as the bar goes.
    const used = 100 * (managed + w.unmanaged) / limit;
    bar.append(el("span", { class: "spilled", style: `left:${used}%;width:${Math.max(0, Math.min(100 * m.Spilled / limit, 100 - used))}%` }));
    if (m.Limit) {
      for (const f of Object.values(fractions)) bar.append(el("span", { class: "line", style: `left:${100 * f}%` }));
    }
    const row = el("div", { class: "bar-row worker-mem" + (w.Paused ? " paused" : ""), "data-worker": w.ID },
      el("span", { class: "name" }, w.Name || w.ID), bar,
      `${bytes(m.Process)}` + (m.Limit ? ` of ${bytes(m.Limit)}` : "") + (m.Spilled ? `, ${bytes(m.Spilled)} spilled` : ""));
    box.append(row);
  }
}

function drawWorkerTable(workers) {
  const body = document.querySelector("#worker-table tbody");
  body.replaceChildren();
  for (const w of workers) {
    const m = w.Memory;
    const res = Object.entries(w.Resources || {}).map(([k, v]) => `${k}=${v}`).join(" ");
    const status = w.Paused ? "paused: " + w.Reason : w.Retiring ? "retiring" : "running";
    const seen = w.LastSeen && !w.LastSeen.startsWith("0001") ? ((lastTime - Date.parse(w.LastSeen)) / 1000).toFixed(1) + " s ago" : "";
    const address = w.Dashboard ? el("a", { href: `http://${w.Dashboard}/metrics` }, w.ID) : w.ID;
    body.append(el("tr", { class: w.Paused ? "paused" : w.Retiring ? "retiring" : "", "data-worker": w.ID },
      ...[address, w.Name, w.NThreads, res, m.Limit ? bytes(m.Limit) : "none", bytes(m.Process), bytes(m.Managed),
        bytes(m.Spilled), w.Processing, bytes(w.Held), Math.round(100 * (w.CPU || 0)) + "%",
        `${bytes(w.Received)} / ${bytes(w.Sent)}`, seen, status].map(v => el("td", {}, v instanceof Node ? v : String(v)))));
  }
}

// The Graph page: a box per task kind, in columns by depth (a kind's
// column is one more than its deepest input's), lines from inputs.
function drawGraph(groups) {
  const svg = document.getElementById("graph-svg");
  const ns = "http://www.w3.org/2000/svg";
  const byName = new Map(groups.map(g => [g.Prefix, g]));
  const depth = new Map();
  const depthOf = (name, seen = new Set()) => {
    if (depth.has(name)) return depth.get(name);
    if (seen.has(name)) return 0;
    seen.add(name);
    const ins = (byName.get(name)?.Inputs || []).filter(i => byName.has(i));
    const d = ins.length ? 1 + Math.max(...ins.map(i => depthOf(i, seen))) : 0;
    depth.set(name, d);
    return d;
  };
  groups.forEach(g => depthOf(g.Prefix));
  const columns = [];
  for (const g of groups) (columns[depth.get(g.Prefix)] ||= []).push(g);
  const boxW = 190, boxH = 52, gapX = 70, gapY = 16;
  const pos = new Map();
  columns.forEach((col, c) => col.forEach((g, r) => pos.set(g.Prefix, { x: 10 + c * (boxW + gapX), y: 10 + r * (boxH + gapY) })));
  const rows = Math.max(1, ...columns.map(c => c ? c.length : 0));
  svg.setAttribute("height", String(20 + rows * (boxH + gapY)));
  svg.setAttribute("width", String(20 + columns.length * (boxW + gapX)));
  svg.replaceChildren();
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  for (const g of groups) {
    const to = pos.get(g.Prefix);
    for (const i of g.Inputs || []) {
      const from = pos.get(i);
      if (from) add("line", { x1: from.x + boxW, y1: from.y + boxH / 2, x2: to.x, y2: to.y + boxH / 2, stroke: "#999" });
    }
  }
  // A kind's name on its own line, cut with an ellipsis to the box's width
  // as drawn (its full name in the box's tooltip); the bar below it, the
  // count on the last line, so that no length of either overlaps another.
  for (const g of groups) {
    const p = pos.get(g.Prefix);
    const total = g.Waiting + g.Processing + g.Memory + g.Done + g.Erred || 1;
    const box = add("rect", { x: p.x, y: p.y, width: boxW, height: boxH, rx: 4, fill: "#fff", stroke: colour(g.Prefix), "stroke-width": 2, class: "graph-node", "data-prefix": g.Prefix });
    const title = document.createElementNS(ns, "title");
    title.textContent = g.Prefix;
    box.append(title);
    const label = add("text", { x: p.x + 6, y: p.y + 15, "font-size": 12, class: "graph-label", "data-prefix": g.Prefix }, g.Prefix);
    for (let n = g.Prefix.length - 1; n > 0 && label.getComputedTextLength() > boxW - 12; n--) {
      label.textContent = g.Prefix.slice(0, n) + "…";
    }
    let at = 0;
    for (const [n, fill] of [[g.Done, "#9bc79b"], [g.Memory, "#3a9a3a"], [g.Processing, "#4a7fd0"], [g.Erred, "#d04a4a"]]) {
      const w = (boxW - 12) * n / total;
      if (w > 0) add("rect", { x: p.x + 6 + at, y: p.y + 21, width: w, height: 10, fill });
      at += w;
    }
    add("text", { x: p.x + 6, y: p.y + 45, "font-size": 11, fill: "#666", class: "graph-count", "data-prefix": g.Prefix }, `${g.Done + g.Memory} / ${total} done`);
  }
  svg.dataset.drawn = String(groups.length);
}

// The Tasks page: one task's state, place, size, run and error (its key
// in the address, ?key=...), and the last tasks to finish.
function drawRecent() {
  const body = document.querySelector("#recent tbody");
  body.replaceChildren(...records.filter(r => !r.kind).slice(-30).reverse().map(r => el("tr", {},
    el("td", {}, el("a", { href: "/tasks?key=" + encodeURIComponent(r.key) }, r.key)), el("td", {}, r.worker),
    el("td", {}, String(r.thread)), el("td", {}, (r.stop - r.start).toFixed(1) + " ms"), el("td", {}, bytes(r.nbytes)))));
}

function showTask(key) {
  document.getElementById("task-key").value = key;
  fetch("/api/task?key=" + encodeURIComponent(key)).then(r => r.ok ? r.json() : null).then(t => {
    const body = document.querySelector("#task-info tbody");
    if (!t) { body.replaceChildren(el("tr", {}, el("td", {}, "no task of that key"))); return; }
    const rows = [["key", t.Key], ["state", t.State], ["in memory on", (t.WhoHas || []).join(" ")],
      ["processing on", t.ProcessingOn], ["bytes", bytes(t.Nbytes)],
      ["ran", t.ran ? `on ${t.ran.worker} thread ${t.ran.thread}, ${(t.ran.stop - t.ran.start).toFixed(1)} ms` : ""],
      ["inputs", (t.Dependencies || []).join(" ")], ["dependents", (t.Dependents || []).join(" ")],
      ["error", t.Err ? t.Err.Message : ""]];
    body.replaceChildren(...rows.filter(r => r[1]).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", { class: "task-" + k.replace(/ /g, "-") }, String(v)))));
    document.getElementById("task-stack").textContent = t.Err && t.Err.Stack ? t.Err.Stack : "";
  });
}
if (page === "tasks") {
  const key = new URLSearchParams(location.search).get("key");
  if (key) showTask(key);
}

function drawLogs(lines) {
  const body = document.querySelector("#log-table tbody");
  body.replaceChildren(...lines.map(l => el("tr", { class: "level-" + l.level.toLowerCase() },
    el("td", {}, new Date(l.time).toLocaleTimeString()), el("td", {}, l.worker || "scheduler"), el("td", {}, l.level),
    el("td", {}, l.message), el("td", {}, l.attrs))));
}

// The task stream: a row per worker thread, a bar per task, and a row per
// worker of its transfers and disk I/O (thread -1), the last ten seconds,
// coloured by kind.
function drawStream(now, workers) {
  const canvas = document.getElementById("stream");
  const width = canvas.clientWidth;
  const rows = [];
  for (const w of workers) for (let t = -1; t < w.NThreads; t++) rows.push(w.ID + "/" + t);
  const { g, axisY } = drawBars(canvas, rows, records, t => width - (now - t) / streamWindow * width, 24, 200);
  for (let s = 0; s <= streamWindow / 1000; s += 2) g.fillText(`-${s}s`, width - s * 1000 / streamWindow * width + 2, axisY);
  canvas.dataset.drawn = String(records.length);
}

// Tasks per second, from the scheduler's count of tasks run, over the
// last minute.
let rateChart = null, opened = null, lastCount = null;
function drawRate(now, count) {
  const perSecond = lastCount ? 1000 * (count - lastCount.count) / Math.max(now - lastCount.time, 1) : 0;
  lastCount = { count, time: now };
  opened ??= now;
  const t = (now - opened) / 1000; // seconds since the page opened
  rates[0].push(t);
  rates[1].push(perSecond);
  while (rates[0].length && rates[0][0] < t - 60) { rates[0].shift(); rates[1].shift(); }
  const box = document.getElementById("rate-chart");
  if (!rateChart) {
    rateChart = new uPlot({ width: box.clientWidth || 600, height: 140, legend: { show: false },
      scales: { x: { time: false, range: (u, min, max) => [Math.max(max - 60, 0), Math.max(max, 10)] },
        y: { range: (u, min, max) => [0, Math.max(max, 1)] } },
      series: [{}, { stroke: "#4a7fd0", fill: "rgba(74,127,208,.15)", label: "tasks/s" }],
      axes: [{ label: "seconds since the page opened", size: 50 }, { size: 60 }] }, rates, box);
  } else {
    rateChart.setData(rates);
  }
  document.getElementById("rate").textContent = `${Math.round(rates[1][rates[1].length - 1])} tasks/s`;
}

function update(st) {
  for (const r of st.stream) records.push(r);
  const cutoff = st.time - streamWindow;
  let drop = Math.max(0, records.length - recordsKept);
  while (drop < records.length && records[drop].stop < cutoff) drop++;
  records.splice(0, drop);
  const workers = st.workers || [];
  lastTime = st.time;
  if (page === "status") {
    drawProgress(st.progress || []);
    drawMemory(workers);
    drawStream(st.time, workers);
    drawRate(st.time, st.tasks);
  } else if (page === "workers") {
    drawWorkerTable(workers);
  } else if (page === "graph") {
    fetch("/api/graph").then(r => r.json()).then(drawGraph);
  } else if (page === "tasks") {
    drawRecent(st.time);
  } else if (page === "logs") {
    fetch("/api/logs").then(r => r.json()).then(drawLogs);
  }
  lastStatus = st;
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
}

const source = new EventSource("/api/events");
const conn = document.getElementById("conn");
source.onmessage = e => { conn.textContent = "live"; conn.classList.add("live"); update(JSON.parse(e.data)); };
source.onerror = () => { conn.textContent = "reconnecting…"; conn.classList.remove("live"); };
