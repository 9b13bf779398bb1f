// Calls to chronicle serve's HTTP API, with the bearer token when the server asks for one.
"use strict";

class ApiError extends Error {
  constructor(status, detail) {
    super(`${status}: ${detail}`);
    this.status = status;
    this.detail = detail;
  }
}

const Api = {
  token: sessionStorage.getItem("chronicle-token") || "",

  setToken(token) {
    this.token = token.trim();
    sessionStorage.setItem("chronicle-token", this.token);
  },

  async request(method, path, body, seen) {
    const headers = {};
    if (this.token) headers["Authorization"] = "Bearer " + this.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status === 401) {
      await askForToken();
      return this.request(method, path, body, seen);
    }
    if (seen) seen(response);
    const type = response.headers.get("content-type") || "";
    const data = type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) throw new ApiError(response.status, (data && data.detail) || data || response.statusText);
    return data;
  },

  get(path, params) {
    return this.request("GET", path + Api.query(params));
  },

  // A page of a list the server pages with a cursor: its rows, and the next page's cursor (null: the last page).
  async page(path, params) {
    let next = null;
    const rows = await this.request("GET", path + Api.query(params), undefined, (r) => { next = r.headers.get("X-Next-Cursor"); });
    return { rows, next };
  },

  query(params) {
    return params ? "?" + new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "")) : "";
  },
  // POST a body and call onEvent with each `data:` frame of the server-sent events it streams back.
  async stream(path, body, onEvent) {
    const headers = { "Content-Type": "application/json", Accept: "text/event-stream" };
    if (this.token) headers["Authorization"] = "Bearer " + this.token;
    const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
    if (response.status === 401) {
      await askForToken();
      return this.stream(path, body, onEvent);
    }
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw new ApiError(response.status, (data && data.detail) || response.statusText);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const data = frame.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (data) onEvent(JSON.parse(data));
      }
      if (done) return;
    }
  },

  post(path, body) { return this.request("POST", path, body === undefined ? {} : body); },

  session(app, user, session) {
    return `/apps/${encodeURIComponent(app)}/users/${encodeURIComponent(user)}/sessions/${encodeURIComponent(session)}`;
  },
};

function askForToken() {
  const dialog = document.getElementById("token-dialog");
  const input = document.getElementById("token-input");
  return new Promise((resolve) => {
    if (dialog.open) { dialog.addEventListener("close", () => resolve(), { once: true }); return; }
    input.value = "";
    dialog.addEventListener("close", () => { Api.setToken(input.value); resolve(); }, { once: true });
    dialog.showModal();
  });
}
