// pier ui's page. The server lays the graph out and redacts every value;
// this file only fetches JSON, colours, zooms and listens to the run's
// events (the objects pier apply --json prints), sent as Server-Sent Events.

const $ = (sel) => document.querySelector(sel);
let token = "";          // sent with every POST, from /api/session
let watching = false;    // pier apply --ui: the terminal drives the run
let graph = null;        // {nodes, edges} from /api/graph
let planned = null;      // the plan the page shows, from /api/plan

// api fetches a JSON answer; a failed request throws its error message.
async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Pier-Token": token },
    body: JSON.stringify(body),
  };
  const resp = await fetch(path, init);
  const text = await resp.text();
  let data;
  try { data = JSON.parse(text); } catch { data = { error: text }; }
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

// el builds an element: el("td", {class: "x"}, "text", child).
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

// block is the resource block an instance address belongs to (the graph's
// nodes are blocks): web.server[0] -> web.server.
const block = (addr) => addr.replace(/\[(?:\d+|"(?:[^"\\]|\\.)*")\]/g, "").replace(/ \(deposed .*\)$/, "");
const nodeOf = (addr) => document.getElementById("r:" + block(addr));

function setStatus(addr, status) {
  const n = nodeOf(addr);
  if (n) n.dataset.status = status;
}

// ---- views ----------------------------------------------------------------

function show(view) {
  for (const b of document.querySelectorAll("nav button")) b.setAttribute("aria-pressed", String(b.dataset.view === view));
  for (const v of ["graph", "plan", "history"]) $("#view-" + v).hidden = v !== view;
  if (view === "history") loadHistory();
}

// ---- graph: pan and zoom by the SVG's viewBox -----------------------------

let svg, box, full;

async function loadGraph() {
  graph = await api("/api/graph");
  const doc = new DOMParser().parseFromString(graph.svg, "image/svg+xml");
  svg = document.importNode(doc.documentElement, true);
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${graph.nodes.length} resources, ${graph.edges.length} dependencies`);
  $("#graph").replaceChildren(svg);
  const vb = svg.viewBox.baseVal;
  full = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
  fit();
  for (const g of svg.querySelectorAll("g.node")) {
    g.setAttribute("tabindex", "0");
    g.dataset.address = g.id.slice(2);
    g.querySelector("title")?.remove();
  }
  // Graphviz titles each edge "FROM->TO"; the page keeps the two ends.
  for (const g of svg.querySelectorAll("g.edge")) {
    const [from, to] = (g.querySelector("title")?.textContent || "").split("->");
    g.dataset.from = from;
    g.dataset.to = to;
  }
  $("#addresses").replaceChildren(...graph.nodes.map((n) => el("option", { value: n.address })));
  document.body.dataset.graph = "ready";
}

function fit() {
  const r = $("#graph").getBoundingClientRect();
  // Keep the aspect of the container, so a tall graph is not squeezed.
  const scale = Math.max(full.w / Math.max(r.width, 1), full.h / Math.max(r.height, 1));
  const w = r.width * scale, h = r.height * scale;
  box = { x: full.x - (w - full.w) / 2, y: full.y - (h - full.h) / 2, w, h };
  draw();
}

function draw() { svg.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`); }

function zoom(f, cx = 0.5, cy = 0.5) {
  const w = box.w * f, h = box.h * f;
  box = { x: box.x + (box.w - w) * cx, y: box.y + (box.h - h) * cy, w, h };
  draw();
}

function pan(dx, dy) { box.x += dx * box.w; box.y += dy * box.h; draw(); }

function centre(g) {
  const b = g.getBBox();
  const w = Math.min(box.w, full.w), h = box.h * (w / box.w);
  box = { x: b.x + b.width / 2 - w / 2, y: b.y + b.height / 2 - h / 2, w, h };
  draw();
}

function wireGraph() {
  const area = $("#graph");
  area.addEventListener("wheel", (e) => {
    if (!svg) return;
    e.preventDefault();
    const r = area.getBoundingClientRect();
    zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
  }, { passive: false });
  let drag = null;
  area.addEventListener("pointerdown", (e) => { if (svg) drag = { x: e.clientX, y: e.clientY, moved: false }; });
  area.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const r = area.getBoundingClientRect();
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.moved) { pan(-dx / r.width, -dy / r.height); drag.x = e.clientX; drag.y = e.clientY; }
  });
  area.addEventListener("pointerup", (e) => {
    const moved = drag?.moved;
    drag = null;
    if (moved) return;
    const g = e.target.closest("g.node");
    if (g) openResource(g.dataset.address);
  });
  area.addEventListener("keydown", (e) => {
    const g = e.target.closest?.("g.node");
    if (g && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); openResource(g.dataset.address); return; }
    const keys = { "+": () => zoom(1 / 1.25), "=": () => zoom(1 / 1.25), "-": () => zoom(1.25), "0": fit,
      ArrowLeft: () => pan(-0.1, 0), ArrowRight: () => pan(0.1, 0), ArrowUp: () => pan(0, -0.1), ArrowDown: () => pan(0, 0.1) };
    if (keys[e.key] && svg) { e.preventDefault(); keys[e.key](); }
  });
  $("#search").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("#search-input").value.trim();
    if (!q || !graph) return;
    const hit = graph.nodes.find((n) => n.address === q) || graph.nodes.find((n) => n.address.includes(q));
    for (const g of svg.querySelectorAll("g.node.found")) g.classList.remove("found");
    if (!hit) { $("#live").textContent = `No resource matches “${q}”.`; return; }
    const g = nodeOf(hit.address);
    g.classList.add("found");
    show("graph");
    centre(g);
    g.focus();
    openResource(hit.address);
  });
}

// ---- resource --------------------------------------------------------------

function jsonBlock(v) { return el("pre", { class: "json" }, JSON.stringify(v ?? {}, null, 2)); }

function addrList(title, addrs) {
  const ul = el("ul");
  for (const a of addrs) {
    const b = el("button", { type: "button", class: "link" }, a);
    b.addEventListener("click", () => openResource(a));
    ul.append(el("li", {}, b));
  }
  if (!addrs.length) ul.append(el("li", {}, "none"));
  return [el("h3", {}, title), ul];
}

async function openResource(addr) {
  const d = $("#details");
  d.hidden = false;
  d.replaceChildren(el("p", { class: "note" }, `Reading ${addr}…`));
  let r;
  try { r = await api("/api/resource?address=" + encodeURIComponent(addr)); } catch (e) {
    d.replaceChildren(el("p", { class: "error" }, e.message));
    return;
  }
  const close = el("button", { type: "button", class: "close", "aria-label": "Close" }, "×");
  close.addEventListener("click", () => { d.hidden = true; });
  d.replaceChildren(close, el("h2", {}, r.address), el("p", {}, `${r.type} · provider ${r.provider}`));
  d.append(...addrList("Depends on", r.dependencies.map((e) => e.from)));
  d.append(...addrList("Needed by", r.dependents.map((e) => e.to)));
  if (!r.instances.length) d.append(el("p", { class: "note" }, "Not recorded in state."));
  for (const i of r.instances) {
    d.append(el("h3", {}, `${i.address} in ${i.state}`));
    if (i.pending) d.append(el("p", { class: "warning" }, `Pending ${i.pending.operation} since ${i.pending.started}: an interrupted run left it unfinished.`));
    d.append(el("h4", {}, "Inputs"), jsonBlock(i.inputs), el("h4", {}, "Outputs"), jsonBlock(i.outputs));
    for (const [k, dep] of Object.entries(i.deposed || {})) d.append(el("h4", {}, `Deposed object ${k}`), jsonBlock(dep));
  }
  for (const [state, events] of Object.entries(r.history)) {
    d.append(el("h3", {}, `History in ${state}`));
    d.append(eventTable(state, events, addr));
  }
}

// ---- history ---------------------------------------------------------------

// eventTable lists a state log's events; "show" gives the state after one,
// "from" picks the earlier event of a diff.
function eventTable(state, events, address = "") {
  const t = el("table", { class: "events", "data-state": state });
  t.append(el("thead", {}, el("tr", {}, ...["#", "time", "event", "touched", "", ""].map((h) => el("th", { scope: "col" }, h)))));
  const body = el("tbody");
  let from = null;
  for (const ev of events) {
    const showB = el("button", { type: "button" }, "show");
    const fromB = el("button", { type: "button", "aria-pressed": "false" }, "from");
    showB.addEventListener("click", () => stateAt(state, ev.index, from, address));
    fromB.addEventListener("click", () => {
      from = from === ev.index ? null : ev.index;
      for (const b of t.querySelectorAll("button[aria-pressed]")) b.setAttribute("aria-pressed", "false");
      if (from !== null) fromB.setAttribute("aria-pressed", "true");
    });
    body.append(el("tr", { "data-index": ev.index }, el("td", {}, String(ev.index)), el("td", {}, ev.time || ""),
      el("td", {}, ev.event || "-"), el("td", {}, (ev.touched || []).join(", ")), el("td", {}, showB), el("td", {}, fromB)));
  }
  t.append(body);
  return t;
}

async function loadHistory() {
  const h = $("#history");
  try {
    const data = await api("/api/history");
    h.replaceChildren();
    for (const [state, events] of Object.entries(data.states)) {
      h.append(el("h2", {}, `${state}: ${events.length} events`), eventTable(state, events));
    }
    if (!Object.keys(data.states).length) h.append(el("p", { class: "note" }, "No state log pier can read."));
    document.body.dataset.history = "ready";
  } catch (e) { h.replaceChildren(el("p", { class: "error" }, e.message)); }
}

async function stateAt(state, at, from, address) {
  const target = address ? $("#details") : $("#history-detail");
  let q = `/api/state?state=${encodeURIComponent(state)}&at=${at}`;
  if (from !== null && from !== at) q += `&from=${from}`;
  if (address) q += `&address=${encodeURIComponent(address)}`;
  const out = el("div", { class: "state-at", "data-at": at });
  try {
    const s = await api(q);
    if (s.diff) {
      out.append(el("h3", {}, `${state}: from event ${s.from} to event ${s.index}`));
      const t = el("table", { class: "diff" }, el("thead", {}, el("tr", {}, ...["path", "before", "after"].map((h) => el("th", { scope: "col" }, h)))));
      for (const d of s.diff) t.append(el("tr", {}, el("td", {}, d.path), el("td", { class: "before" }, JSON.stringify(d.before) ?? ""), el("td", { class: "after" }, JSON.stringify(d.after) ?? "")));
      if (!s.diff.length) t.append(el("tr", {}, el("td", {}, "no difference")));
      out.append(t);
    } else {
      out.append(el("h3", {}, `${state} after event ${s.index}`), jsonBlock({ resources: s.resources, outputs: s.outputs }));
    }
  } catch (e) { out.append(el("p", { class: "error" }, e.message)); }
  target.querySelector(".state-at")?.remove();
  target.append(out);
  if (address) target.hidden = false;
}

// ---- plan and apply ----------------------------------------------------------

const list = (s) => s.split(",").map((x) => x.trim()).filter(Boolean);

async function plan(e) {
  e.preventDefault();
  const f = new FormData($("#plan-form"));
  $("#plan-error").textContent = "";
  $("#plan-text").textContent = "Planning…";
  $("#apply-button").disabled = true;
  try {
    planned = await api("/api/plan", {
      refresh: f.has("refresh"), refresh_only: f.has("refresh_only"), destroy: f.has("destroy"),
      targets: list(f.get("targets") || ""), replace: list(f.get("replace") || ""),
    });
  } catch (err) {
    $("#plan-text").textContent = "";
    $("#plan-error").textContent = err.message;
    return;
  }
  $("#plan-text").textContent = planned.text;
  for (const g of document.querySelectorAll("g.node")) delete g.dataset.status;
  for (const [addr, st] of Object.entries(planned.statuses)) setStatus(addr, st);
  $("#apply-button").disabled = !planned.has_changes || watching;
  document.body.dataset.plan = "ready";
}

function confirmApply() {
  const s = planned.plan.summary;
  $("#confirm-summary").textContent = `${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.destroy} to destroy.`;
  const box = $("#confirm-destructive");
  box.replaceChildren();
  if (planned.destructive.length) {
    box.append(el("p", { class: "warning" }, "This destroys or replaces:"), el("ul", {}, ...planned.destructive.map((a) => el("li", {}, a))));
  }
  $("#confirm").showModal();
}

async function apply() {
  $("#plan-error").textContent = "";
  try {
    await api("/api/apply", { plan: planned.id, confirm: planned.destructive });
  } catch (err) {
    $("#plan-error").textContent = err.message;
  }
}

// ---- the run's events --------------------------------------------------------

const rows = new Map(); // address -> {tr, started}
let running = false;

function row(addr) {
  let r = rows.get(addr);
  if (!r) {
    const tr = el("tr", { "data-address": addr }, el("td", {}, addr), el("td", { class: "action" }), el("td", { class: "status" }), el("td", { class: "elapsed" }), el("td", { class: "error" }));
    $("#run-table tbody").append(tr);
    r = { tr, started: 0 };
    rows.set(addr, r);
  }
  return r;
}

const shown = { PENDING: "pending", APPLYING: "applying", APPLIED: "applied", ERRORED: "failed", SKIPPED: "skipped", REFRESHING: "applying", REFRESHED: "applied" };

function onEvent(m) {
  switch (m.message_type) {
    case "plan": // a run starts with the plan it carries out
      rows.clear();
      $("#run-table tbody").replaceChildren();
      $("#summary").textContent = "";
      for (const g of document.querySelectorAll("g.node")) delete g.dataset.status;
      running = true;
      $("#interrupt-button").disabled = watching;
      $("#apply-button").disabled = true;
      $("#live").textContent = "Applying…";
      document.body.dataset.run = "running";
      break;
    case "status": {
      const r = row(m.address);
      const st = shown[m.status] || m.status.toLowerCase();
      r.tr.dataset.status = st;
      r.tr.querySelector(".action").textContent = m.action;
      r.tr.querySelector(".status").textContent = st;
      if (m.status === "APPLYING") r.started = Date.now();
      if (m.elapsed_seconds !== undefined) r.tr.querySelector(".elapsed").textContent = m.elapsed_seconds.toFixed(1) + " s";
      if (m.diagnostics) r.tr.querySelector(".error").textContent = m.diagnostics.map((d) => d.summary + (d.detail ? ": " + d.detail : "")).join("; ");
      setStatus(m.address, st === "pending" ? m.action.replace("no-op", "unchanged") : st);
      break;
    }
    case "summary": {
      running = false;
      const failed = (m.errors || []).length;
      $("#summary").textContent = `${m.interrupted ? "Interrupted" : failed ? "Failed" : "Done"}: ${m.created} created, ${m.updated} updated, ${m.destroyed} destroyed` +
        (failed ? `, ${failed} failed` : "") + ((m.skipped || []).length ? `, ${m.skipped.length} skipped` : "") + ".";
      for (const e of m.errors || []) $("#summary").append(el("br"), e);
      $("#summary").dataset.created = m.created;
      $("#summary").dataset.updated = m.updated;
      $("#summary").dataset.destroyed = m.destroyed;
      $("#summary").dataset.failed = failed;
      $("#interrupt-button").disabled = true;
      $("#live").textContent = $("#summary").textContent;
      document.body.dataset.run = "done";
      break;
    }
    case "diagnostic":
      $("#plan-error").textContent = m.summary;
      break;
    case "state_event": // another process (a teammate's pier apply) recorded it
      landed(m);
      break;
  }
}

// landed shows a state event recorded elsewhere: the instances it touched
// in the graph, and a row in the state's history table.
function landed(m) {
  for (const [addr, st] of Object.entries(m.statuses || {})) setStatus(addr, st);
  const t = document.querySelector(`#history table.events[data-state="${CSS.escape(m.state)}"]`);
  if (t && !t.querySelector(`tr[data-index="${m.index}"]`)) {
    const fresh = eventTable(m.state, [m]).querySelector("tbody tr");
    t.querySelector("tbody").append(fresh);
  }
  $("#live").textContent = `${m.state}: event ${m.index} (${m.event || "-"}) recorded.`;
  document.body.dataset.landed = String(Number(document.body.dataset.landed || 0) + 1);
}

// Elapsed times of running operations move once a second.
setInterval(() => {
  for (const r of rows.values()) {
    if (r.tr.dataset.status === "applying" && r.started) r.tr.querySelector(".elapsed").textContent = Math.round((Date.now() - r.started) / 1000) + " s…";
  }
}, 1000);

function listen() {
  const es = new EventSource("/api/events");
  es.onmessage = (e) => onEvent(JSON.parse(e.data));
  es.onerror = () => { if (running) $("#live").textContent = "Lost the connection to pier; it may have finished."; };
}

// ---- start -----------------------------------------------------------------

async function start() {
  const s = await api("/api/session");
  token = s.token;
  watching = s.watch;
  $("#deployment").textContent = s.deployment;
  if (watching) {
    $("#plan-form").hidden = true;
    $("#apply-button").hidden = true;
    $("#interrupt-button").hidden = true;
    show("plan");
  }
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => show(b.dataset.view));
  $("#plan-form").addEventListener("submit", plan);
  $("#apply-button").addEventListener("click", confirmApply);
  $("#confirm").addEventListener("close", () => { if ($("#confirm").returnValue === "apply") apply(); });
  $("#interrupt-button").addEventListener("click", () => api("/api/interrupt", {}).catch((e) => { $("#plan-error").textContent = e.message; }));
  wireGraph();
  listen();
  try { await loadGraph(); } catch (e) { $("#graph").replaceChildren(el("p", { class: "error" }, e.message)); }
}

start();
