// Small DOM helpers: build elements, format values, confirm an action.
"use strict";

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.style.cssText = value;  // through the CSSOM: the page's CSP refuses inline style attributes
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

function json(value) {
  return JSON.stringify(value, null, 2);
}

function short(value, width = 120) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length <= width ? text : text.slice(0, width - 1) + "…";
}

function when(seconds) {
  if (seconds === null || seconds === undefined) return "";
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

function ms(value) {
  if (value === null || value === undefined) return "–";
  return value >= 1000 ? (value / 1000).toFixed(2) + " s" : Math.round(value) + " ms";
}

function bytes(n) {
  if (n === null || n === undefined) return "–";
  if (n < 1024) return n + " B";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
  return (n / 1024 / 1024).toFixed(1) + " MiB";
}

// "1 rewind", "2 rewinds": a count with its noun.
function plural(n, noun, many) {
  return `${n} ${n === 1 ? noun : many || noun + "s"}`;
}

function badge(text, kind) {
  return h("span", { class: "badge " + (kind || text) }, text.replace("_", " "));
}

function kv(object) {
  const keys = Object.keys(object || {});
  if (!keys.length) return h("div", { class: "muted" }, "(empty)");
  return h("div", { class: "kv" }, keys.sort().map((k) => [h("div", { class: "k" }, k), h("div", { class: "mono" }, short(object[k], 400))]));
}

function errorBox(error) {
  return h("div", { class: "error-box", role: "alert" }, error.detail ? `${error.status}: ${error.detail}` : String(error));
}

function link(text, hash) {
  return h("a", { href: "#" + hash }, text);
}

function sessionHash(page, app, user, session, params) {
  const path = `/${page}/${encodeURIComponent(app)}/${encodeURIComponent(user)}/${encodeURIComponent(session)}`;
  return params ? path + "?" + new URLSearchParams(params) : path;
}

// A confirmation step before an action that writes: resolves true when the person confirms.
function confirmAction(title, body, okLabel) {
  const dialog = document.getElementById("confirm-dialog");
  document.getElementById("confirm-title").textContent = title;
  const holder = document.getElementById("confirm-body");
  holder.replaceChildren(body instanceof Node ? body : h("p", {}, body));
  document.getElementById("confirm-ok").textContent = okLabel || "Confirm";
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}
