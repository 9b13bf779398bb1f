// Charts as inline SVG: horizontal bars per name, grouped bars per day, and a turn's waterfall.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const COLORS = ["#2456c9", "#d79b3c", "#59a36f", "#b3261e", "#7a5bc4", "#3a9fb0"];

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== "") el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function fmt(v, unit) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  if (unit === "ms") return ms(v);
  if (unit === "%") return (v * 100).toFixed(v < 0.1 && v > 0 ? 1 : 0).replace(/\.0$/, "") + "%";
  return v >= 10000 ? (v / 1000).toFixed(1) + "k" : String(Math.round(v * 100) / 100);
}

function legend(series) {
  return h("div", { class: "legend" }, series.map((name, i) => [h("i", { style: `background:${COLORS[i % COLORS.length]}` }), name]));
}

// rows: [{label, values: [..]}], one bar per series value.
function hbarChart(title, rows, series, unit, id) {
  const lineH = 18, gap = 8, labelW = 150, width = 560, valueW = 70;
  const groupH = series.length * lineH + gap;
  const max = Math.max(1e-9, ...rows.flatMap((r) => r.values.map((v) => v || 0)));
  const height = Math.max(30, rows.length * groupH + 6);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  rows.forEach((r, i) => {
    const y0 = 4 + i * groupH;
    svg.append(s("text", { x: 0, y: y0 + (series.length * lineH) / 2 + 4 }, short(r.label, 24)));
    r.values.forEach((v, j) => {
      const w = ((v || 0) / max) * (width - labelW - valueW);
      const y = y0 + j * lineH;
      svg.append(s("rect", { x: labelW, y, width: Math.max(w, v ? 1 : 0), height: lineH - 4, rx: 2, fill: COLORS[j % COLORS.length] },
        s("title", {}, `${r.label} · ${series[j]}: ${fmt(v, unit)}`)));
      svg.append(s("text", { x: labelW + w + 4, y: y + lineH - 7 }, fmt(v, unit)));
    });
  });
  return h("div", { class: "chart", id }, h("h3", {}, title), series.length > 1 ? legend(series) : "", rows.length ? svg : h("div", { class: "empty" }, "No data yet."));
}

// days: [{label: "2026-01-31", values: [..]}], grouped vertical bars.
function dayChart(title, days, series, unit, id) {
  const width = 560, height = 200, left = 46, bottom = 34, top = 10;
  const top_ = Math.max(0, ...days.flatMap((d) => d.values.map((v) => v || 0)));
  const max = top_ || 1;  // all zero: the bars are flat, and the axis says 0 once
  const slot = (width - left - 10) / Math.max(days.length, 1);
  const barW = Math.min(28, (slot - 8) / series.length);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  const plotH = height - bottom - top;
  const ticks = [];  // 0, half and the top, each label once (small values round to the same text)
  (top_ ? [0, 0.5, 1] : [0]).forEach((f) => { if (!ticks.some((t) => t.label === fmt(max * f, unit))) ticks.push({ f, label: fmt(max * f, unit) }); });
  ticks.forEach(({ f, label }) => {
    const y = top + plotH * (1 - f);
    svg.append(s("line", { x1: left, x2: width - 6, y1: y, y2: y, stroke: "#e1e4ea" }));
    svg.append(s("text", { x: left - 6, y: y + 4, "text-anchor": "end" }, label));
  });
  days.forEach((d, i) => {
    const x0 = left + i * slot + (slot - barW * series.length) / 2;
    d.values.forEach((v, j) => {
      const bh = ((v || 0) / max) * plotH;
      svg.append(s("rect", { x: x0 + j * barW, y: top + plotH - bh, width: barW - 2, height: bh, fill: COLORS[j % COLORS.length] },
        s("title", {}, `${d.label} · ${series[j]}: ${fmt(v, unit)}`)));
    });
    svg.append(s("text", { x: left + i * slot + slot / 2, y: height - bottom + 16, "text-anchor": "middle" }, d.label.slice(5)));
  });
  return h("div", { class: "chart", id }, h("h3", {}, title), legend(series), days.length ? svg : h("div", { class: "empty" }, "No data yet."));
}

// A turn's spans (OpenTelemetry, from the traces route) as a waterfall: one row per span, nested.
const Waterfall = {
  panel(spans, history) {
    const roots = spans.filter((sp) => !sp.parent_span_id).sort((a, b) => a.start_time_unix_nano - b.start_time_unix_nano);
    const holder = h("div", {});
    const pick = h("select", { id: "trace-turn", onchange: () => holder.replaceChildren(Waterfall.draw(spans, roots[pick.value])) },
      roots.map((r, i) => h("option", { value: i }, `${i + 1}. ${r.name}`)));
    holder.append(Waterfall.draw(spans, roots[roots.length - 1]));
    pick.value = String(roots.length - 1);
    return h("div", { class: "panel", id: "traces" }, h("div", { class: "row" }, h("h2", { style: "margin:0" }, "Trace"), h("label", {}, "turn", pick)), holder);
  },

  draw(spans, root) {
    if (!root) return h("div", { class: "empty" }, "No spans.");
    const children = {};
    spans.forEach((sp) => { (children[sp.parent_span_id || ""] = children[sp.parent_span_id || ""] || []).push(sp); });
    const rows = [];
    (function walk(sp, depth) {
      rows.push([sp, depth]);
      (children[sp.span_id] || []).sort((a, b) => a.start_time_unix_nano - b.start_time_unix_nano).forEach((c) => walk(c, depth + 1));
    })(root, 0);
    const t0 = root.start_time_unix_nano, span = Math.max(1, root.end_time_unix_nano - t0);
    const width = 1180, labelW = 320, rowH = 20;
    const height = rows.length * rowH + 6;  // drawn at its own size (text stays 11px), narrower on a small screen
    const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "waterfall", role: "img", "aria-label": "trace waterfall" });
    rows.forEach(([sp, depth], i) => {
      const x = labelW + ((sp.start_time_unix_nano - t0) / span) * (width - labelW - 80);
      const w = Math.max(2, ((sp.end_time_unix_nano - sp.start_time_unix_nano) / span) * (width - labelW - 80));
      const kind = sp.name.startsWith("execute_tool") ? " tool" : sp.name.startsWith("chat") || sp.name.startsWith("generate") ? " model" : "";
      const durMs = (sp.end_time_unix_nano - sp.start_time_unix_nano) / 1e6;
      svg.append(s("text", { x: depth * 14, y: i * rowH + 15 }, short(sp.name, 40 - depth * 2)));
      svg.append(s("rect", { class: "bar" + kind, x, y: i * rowH + 4, width: w, height: rowH - 6, rx: 2 },
        s("title", {}, `${sp.name}\n${ms(durMs)}\n${Object.entries(sp.attributes || {}).map(([k, v]) => `${k}: ${v}`).join("\n")}`)));
      svg.append(s("text", { x: x + w + 4, y: i * rowH + 15 }, ms(durMs)));
    });
    return svg;
  },
};
