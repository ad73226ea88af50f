#include "crawler/observe/status_page.h"

namespace bloomcrawl {
namespace {

constexpr std::string_view kPage = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bloomcrawl status</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  header { background: #1d2330; color: #fff; padding: 10px 20px; display: flex; gap: 20px; align-items: baseline; }
  header h1 { font-size: 18px; margin: 0; }
  header .muted { color: #aab; }
  main { padding: 14px 20px; display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 14px; }
  section { background: #fff; border-radius: 6px; padding: 12px 14px; box-shadow: 0 1px 2px #0002; }
  h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: #667; margin: 0 0 8px; }
  .figures { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; }
  .figure b { display: block; font-size: 20px; font-variant-numeric: tabular-nums; }
  .figure span { color: #667; font-size: 12px; }
  canvas { width: 100%; height: 140px; display: block; }
  .bar { display: flex; height: 18px; border-radius: 3px; overflow: hidden; background: #eee; margin: 6px 0; }
  .bar div { height: 100%; }
  table { width: 100%; border-collapse: collapse; font-size: 12px; }
  td, th { text-align: left; padding: 2px 4px; border-bottom: 1px solid #eee; white-space: nowrap; }
  td.n { text-align: right; font-variant-numeric: tabular-nums; }
  td.url { max-width: 280px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .legend span { margin-right: 10px; font-size: 12px; }
  .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
  #error { color: #b00; }
</style>
</head>
<body>
<header><h1>bloomcrawl</h1><span class="muted">live status, refreshed every 2 s</span>
  <span class="muted">updated <span id="updated">never</span></span><span id="error"></span></header>
<main>
  <section><h2>Progress</h2>
    <div class="figures">
      <div class="figure"><b id="pages-fetched">-</b><span>pages fetched</span></div>
      <div class="figure"><b id="pages-per-second">-</b><span>pages/s (10 s)</span></div>
      <div class="figure"><b id="queued">-</b><span>URLs queued</span></div>
      <div class="figure"><b id="hosts">-</b><span>hosts</span></div>
      <div class="figure"><b id="in-flight">-</b><span>in flight</span></div>
      <div class="figure"><b id="duplicates-avoided">-</b><span>duplicate fetches avoided</span></div>
      <div class="figure"><b id="revisited">-</b><span>known pages revisited</span></div>
      <div class="figure"><b id="next-due">-</b><span>next revisit due</span></div>
      <div class="figure"><b id="exact-duplicates">-</b><span>pages seen at another URL</span></div>
      <div class="figure"><b id="learned-rules">-</b><span>learned parameter rules</span></div>
    </div>
    <div class="bar"><div id="progress-bar" style="width:0;background:#3b7dd8"></div></div>
    <span id="progress-text"></span>
  </section>
  <section><h2>Pages fetched, last hour</h2><canvas id="chart-pages"></canvas></section>
  <section><h2>Pages per second, last hour</h2><canvas id="chart-rate"></canvas></section>
  <section><h2>Queue size, last hour</h2><canvas id="chart-queued"></canvas></section>
  <section><h2>Status mix</h2><div class="bar" id="status-bar"></div><div class="legend" id="status-legend"></div></section>
  <section><h2>Seen filter</h2>
    <div class="figures">
      <div class="figure"><b id="filter-keys">-</b><span>keys</span></div>
      <div class="figure"><b id="filter-fill">-</b><span>of capacity</span></div>
      <div class="figure"><b id="filter-fpr">-</b><span>estimated FPR</span></div>
      <div class="figure"><b id="filter-loss">-</b><span>pages estimated lost</span></div>
      <div class="figure"><b id="filter-audited">-</b><span>lost, audited</span></div>
      <div class="figure"><b id="filter-mb">-</b><span>MB in <span id="filter-layers">-</span> layers</span></div>
    </div>
    <div class="bar"><div id="filter-bar" style="width:0;background:#8a5cd0"></div></div>
  </section>
  <section><h2>Revisits</h2>
    <div class="figures">
      <div class="figure"><b id="revisit-not-modified">-</b><span>not modified (304)</span></div>
      <div class="figure"><b id="revisit-unchanged">-</b><span>unchanged (same digest)</span></div>
      <div class="figure"><b id="revisit-changed">-</b><span>changed</span></div>
      <div class="figure"><b id="revisit-gone">-</b><span>gone (404, 410)</span></div>
      <div class="figure"><b id="revisit-new-urls">-</b><span>new URLs found on them</span></div>
      <div class="figure"><b id="revisit-mb-saved">-</b><span>MB saved by 304s</span></div>
      <div class="figure"><b id="revisit-due-within-hour">-</b><span>due within the hour</span></div>
    </div>
  </section>
  <section><h2>Content seen</h2>
    <div class="figures">
      <div class="figure"><b id="content-near-duplicates">-</b><span>near duplicates (SimHash)</span></div>
      <div class="figure"><b id="content-fetches-saved-by-rules">-</b><span>fetches saved by learned rules</span></div>
      <div class="figure"><b id="content-mb-warc-saved">-</b><span>MB of WARC payload saved</span></div>
    </div>
    <table id="content-rules"></table>
  </section>
  <section><h2>Top hosts by duplicates avoided</h2><table id="top-hosts"></table></section>
  <section><h2>Recent errors</h2><table id="recent-errors"></table></section>
</main>
<script>
"use strict";
const STATUS_COLORS = {"2xx": "#3a9d5d", "3xx": "#3b7dd8", "4xx": "#e0a030", "5xx": "#d04040", "failed": "#777"};
const $ = (id) => document.getElementById(id);
const fmt = (n) => Number(n).toLocaleString("en-US", {maximumFractionDigits: 1});
const clock = (t) => new Date(t * 1000).toLocaleTimeString("en-GB");
function text(id, value) { $(id).textContent = value; }
function cell(row, value, cls) { const td = row.insertCell(); td.textContent = value; if (cls) td.className = cls; }

function chart(id, times, values, color) {
  const canvas = $(id), dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w * dpr; canvas.height = h * dpr;
  const g = canvas.getContext("2d");
  g.scale(dpr, dpr);
  g.clearRect(0, 0, w, h);
  const left = 48, bottom = h - 16, top = 6, right = w - 6;
  // The last hour at most; a younger crawl spans its own age (a minute at least).
  const now = times.length ? times[times.length - 1] : 0;
  const span = Math.min(3600, Math.max(60, times.length ? now - times[0] : 0));
  const max = Math.max(1, ...values);
  g.strokeStyle = "#ddd"; g.fillStyle = "#667"; g.font = "11px system-ui";
  for (let i = 0; i <= 2; i++) {
    const y = bottom - (bottom - top) * i / 2;
    g.beginPath(); g.moveTo(left, y); g.lineTo(right, y); g.stroke();
    g.fillText(fmt(max * i / 2), 2, y + 4);
  }
  g.fillText(span >= 120 ? "-" + Math.round(span / 60) + " min" : "-" + Math.round(span) + " s", left, h - 2); g.fillText("now", right - 22, h - 2);
  const x = (t) => right - (now - t) / span * (right - left);
  const y = (v) => bottom - v / max * (bottom - top);
  g.strokeStyle = color; g.lineWidth = 1.5; g.beginPath();
  times.forEach((t, i) => { if (i === 0) g.moveTo(x(t), y(values[i])); else g.lineTo(x(t), y(values[i])); });
  g.stroke();
}

function render(s) {
  const p = s.progress;
  text("pages-fetched", fmt(p.pages_fetched));
  text("pages-per-second", fmt(p.pages_per_second));
  text("queued", fmt(p.queued));
  text("hosts", fmt(p.hosts));
  text("in-flight", fmt(p.in_flight));
  text("duplicates-avoided", fmt(p.duplicates_avoided));
  text("revisited", fmt(p.revisited));
  text("next-due", p.revisit_next_due_seconds > 0 ? new Date(p.revisit_next_due_seconds * 1000).toISOString() : "-");
  text("exact-duplicates", fmt(p.exact_duplicates));
  text("learned-rules", fmt(p.learned_rules));
  const total = p.max_pages > 0 ? p.max_pages : p.pages_fetched + p.queued;
  const share = total > 0 ? Math.min(1, p.pages_fetched / total) : 0;
  $("progress-bar").style.width = (100 * share).toFixed(1) + "%";
  text("progress-text", (100 * share).toFixed(1) + "% of " + fmt(total) +
       (p.max_pages > 0 ? " pages (max_pages)" : " pages known so far (fetched + queued)"));

  const hist = s.history;
  chart("chart-pages", hist.time, hist.pages, "#3b7dd8");
  chart("chart-rate", hist.time, hist.pages_per_second, "#3a9d5d");
  chart("chart-queued", hist.time, hist.queued, "#e0a030");

  const mix = s.status_mix, sum = Object.values(mix).reduce((a, b) => a + b, 0);
  const bar = $("status-bar"), legend = $("status-legend");
  bar.replaceChildren(); legend.replaceChildren();
  for (const [name, n] of Object.entries(mix)) {
    const part = document.createElement("div");
    part.style.width = (sum ? 100 * n / sum : 0) + "%"; part.style.background = STATUS_COLORS[name];
    bar.append(part);
    const item = document.createElement("span");
    item.innerHTML = '<i style="background:' + STATUS_COLORS[name] + '"></i>';
    item.append(name + " " + fmt(n));
    item.id = "status-" + name;
    legend.append(item);
  }

  const f = s.filter;
  text("filter-keys", fmt(f.keys));
  text("filter-fill", (100 * f.fill).toFixed(1) + "%");
  text("filter-fpr", f.keys > 0 ? f.estimated_fpr.toExponential(2) : "0");
  text("filter-loss", f.estimated_false_positives.toFixed(3));
  text("filter-audited", "audited_false_positives" in f ? fmt(f.audited_false_positives) : "off");
  text("filter-mb", (f.bytes / 1048576).toFixed(2));
  text("filter-layers", f.layers);
  $("filter-bar").style.width = Math.min(100, 100 * f.fill).toFixed(1) + "%";

  const v = s.revisits;  // each figure's id is "revisit-" and its field with dashes
  for (const field of ["not_modified", "unchanged", "changed", "gone", "new_urls", "due_within_hour"])
    text("revisit-" + field.replaceAll("_", "-"), fmt(v[field]));
  text("revisit-mb-saved", (v.bytes_saved / 1048576).toFixed(2));

  const c = s.content_seen;
  text("content-near-duplicates", fmt(c.near_duplicates));
  text("content-fetches-saved-by-rules", fmt(c.fetches_saved_by_rules));
  text("content-mb-warc-saved", (c.warc_bytes_saved / 1048576).toFixed(2));
  const rules = $("content-rules");
  rules.replaceChildren();
  for (const r of c.rules) { const row = rules.insertRow(); cell(row, r.host); cell(row, r.param); cell(row, fmt(r.agreeing) + " pairs", "n"); }
  if (!c.rules.length) cell(rules.insertRow(), "no parameter rule learned");

  const hosts = $("top-hosts");
  hosts.replaceChildren();
  for (const h of s.top_hosts) { const r = hosts.insertRow(); cell(r, h.host); cell(r, fmt(h.duplicates_avoided), "n"); }
  if (!s.top_hosts.length) cell(hosts.insertRow(), "none yet");
  const errors = $("recent-errors");
  errors.replaceChildren();
  for (const e of s.recent_errors) {
    const r = errors.insertRow();
    cell(r, clock(e.time)); cell(r, e.error); cell(r, e.url, "url");
  }
  if (!s.recent_errors.length) cell(errors.insertRow(), "none");
  text("updated", clock(s.time));
}

async function refresh() {
  try {
    const response = await fetch("status.json", {cache: "no-store"});
    if (!response.ok) throw new Error("HTTP " + response.status);
    render(await response.json());
    text("error", "");
  } catch (e) {
    text("error", "not updating: " + e.message);
  }
}
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)html";

}  // namespace

std::string_view status_page_html() { return kPage; }

}  // namespace bloomcrawl
