// A session's artifacts: every version with its size and type; text and images shown inline;
// download any version.
"use strict";

const ArtifactsPage = {
  async render(app, user, session, params) {
    const base = Api.session(app, user, session) + "/artifacts";
    const names = await Api.get(base);
    const versions = await Promise.all(names.map((n) => Api.get(`${base}/${encodeURIComponent(n)}/versions/metadata`)));
    const preview = h("div", { id: "artifact-preview", class: "panel preview" }, h("span", { class: "muted" }, "Pick a version to see it."));

    async function show(name, v) {
      preview.dataset.ready = "";
      const part = await Api.get(`${base}/${encodeURIComponent(name)}/versions/${v.version}`);
      const { mime, data } = partBytes(part);
      let body;
      if (part.text !== undefined) body = h("pre", {}, part.text);
      else if (mime.startsWith("image/")) body = h("img", { src: `data:${mime};base64,${b64(data)}`, alt: `${name} v${v.version}` });
      else if (mime.startsWith("text/") || mime.includes("json")) body = h("pre", {}, new TextDecoder().decode(b64bytes(data)));
      else body = h("div", { class: "muted" }, `${mime}: no preview; download it.`);
      preview.replaceChildren(h("div", { class: "row" }, h("h3", {}, `${name} · version ${v.version}`), h("span", { class: "muted" }, `${mime} · ${bytes(v.size)}`),
        h("button", { onclick: () => download(name, v.version, part) }, "Download")), body);
      preview.dataset.ready = "1";
    }

    const tables = names.map((name, i) => h("div", { class: "panel", dataset: { artifact: name } },
      h("h3", {}, name),
      h("table", {}, h("thead", {}, h("tr", {}, ["version", "type", "size", "saved", "sha256", ""].map((t) => h("th", {}, t)))),
        h("tbody", {}, versions[i].map((v) => h("tr", { class: "clickable", dataset: { version: v.version }, onclick: () => show(name, v) },
          h("td", {}, v.version), h("td", {}, v.mimeType || "text"), h("td", {}, bytes(v.size)), h("td", { class: "muted" }, when(v.createTime)),
          h("td", { class: "mono muted" }, short(v.sha256 || "", 16)), h("td", {}, h("button", { onclick: (e) => { e.stopPropagation(); show(name, v); } }, "Show"))))))));
    const page = h("div", { id: "artifacts" },
      h("h1", {}, "Artifacts"),
      h("div", { class: "sub" }, "Session ", link(session, sessionHash("session", app, user, session)), ` · app ${app} · user ${user}`),
      names.length ? h("div", { class: "grid2" }, h("div", {}, tables), preview) : h("div", { class: "empty panel" }, "No artifact in this session."));
    const wanted = names.indexOf(params.name);
    if (wanted >= 0) {
      const v = versions[wanted].find((x) => String(x.version) === String(params.version)) || versions[wanted][versions[wanted].length - 1];
      await show(params.name, v);
    }
    return page;
  },
};

// Part bytes come as base64, URL-safe or not: made standard (and padded) for atob and data: URLs.
function b64(data) {
  const std = (data || "").replace(/-/g, "+").replace(/_/g, "/");
  return std + "=".repeat((4 - (std.length % 4)) % 4);
}

function b64bytes(data) {
  const raw = atob(b64(data));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function partBytes(part) {
  if (part.inlineData) return { mime: part.inlineData.mimeType || "application/octet-stream", data: part.inlineData.data };
  return { mime: "text/plain", data: "" };
}

function download(name, version, part) {
  const blob = part.text !== undefined ? new Blob([part.text], { type: "text/plain" })
    : new Blob([b64bytes(part.inlineData.data)], { type: part.inlineData.mimeType });
  const url = URL.createObjectURL(blob);
  h("a", { href: url, download: `v${version}-${name}` }).click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
