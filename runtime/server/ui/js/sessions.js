// Sessions: filter by app, user and date, search the text, see each session's status.
"use strict";

const SessionsPage = {
  async render(params) {
    const apps = await Api.get("/list-apps").catch(() => []);
    const form = h("form", { class: "panel row", id: "session-filter" },
      h("label", {}, "App", h("select", { name: "app" }, h("option", { value: "" }, "all apps"),
        apps.map((a) => h("option", { value: a, selected: params.app === a }, a)))),
      h("label", {}, "User", h("input", { name: "user", value: params.user || "", placeholder: "any user", size: 10 })),
      h("label", {}, "From", h("input", { name: "since", type: "date", value: params.since || "" })),
      h("label", {}, "To", h("input", { name: "until", type: "date", value: params.until || "" })),
      h("label", { class: "grow" }, "Text", h("input", { name: "q", value: params.q || "", placeholder: "words in messages, tool calls, results" })),
      h("label", {}, "Status", h("select", { name: "status" }, h("option", { value: "" }, "any"),
        [["waiting", "waiting for a person"], ["rewound", "rewound"], ["forked", "forked from another"],
         ["forked_into", "forked into others"], ["deleted", "deleted"]].map(([v, t]) => h("option", { value: v, selected: params.status === v }, t)))),
      h("button", { class: "primary", type: "submit" }, "Search"),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const chosen = Object.fromEntries([...new FormData(form)].filter(([, v]) => v));
      go("/sessions?" + new URLSearchParams(chosen));
    });
    const page = await Api.page("/chronicle/sessions", params);
    const found = page.rows;
    const row = (s) => h("tr", { class: "clickable", dataset: { session: s.session_id },
      onclick: () => go(sessionHash("session", s.app_name, s.user_id, s.session_id)) },
      h("td", {}, link(s.session_id, sessionHash("session", s.app_name, s.user_id, s.session_id))),
      h("td", {}, s.app_name), h("td", {}, s.user_id),
      h("td", {}, s.status.map((st) => badge(st)), s.pending ? h("span", { class: "muted" }, ` ${s.pending} open`) : ""),
      h("td", { class: "muted" }, short(s.match || s.first_text || "", 70)),
      h("td", {}, s.invocations), h("td", { class: "muted" }, when(s.updated)),
    );
    const body = h("tbody", {}, found.map(row));
    const count = h("div", { class: "sub" }, `${plural(found.length, "session")}${page.next ? " shown" : ""}, newest first`);
    // The next page starts after the last session shown (a cursor, so appends meanwhile do not shift it).
    const more = h("button", { id: "more-sessions", onclick: async () => {
      const next = await Api.page("/chronicle/sessions", { ...params, after: more.dataset.after });
      next.rows.forEach((s) => body.append(row(s)));
      count.textContent = `${plural(body.children.length, "session")}${next.next ? " shown" : ""}, newest first`;
      if (next.next) more.dataset.after = next.next; else more.remove();
    } }, "Show more");
    more.dataset.after = page.next || "";
    return h("div", {},
      h("h1", {}, "Sessions"),
      count,
      form,
      found.length ? h("table", { id: "sessions" },
        h("thead", {}, h("tr", {}, ["session", "app", "user", "status", params.q ? "match" : "first message", "turns", "updated"].map((t) => h("th", {}, t)))),
        body) : h("div", { class: "empty panel" }, "No session matches."),
      page.next ? more : "",
    );
  },
};
