// Audit: each session's hash chain, a broken link shown where it is (found vs expected), and the
// purge record. An operator's token checks the whole store; a user's checks its own sessions.
"use strict";

const AuditPage = {
  async render(params) {
    const sessions = await Api.get("/chronicle/sessions", { app: params.app, user: params.user });
    let store = null;
    try { store = await Api.get("/chronicle/verify", { app: params.app, user: params.user }); } catch (e) { if (e.status !== 403) throw e; }
    const brokenBySession = {};
    let others = [];
    if (store) {
      store.broken.forEach((b) => { if (b.kind === "session" && b.session_id) brokenBySession[`${b.app_name}/${b.user_id}/${b.session_id}`] = b; else others.push(b); });
    } else {
      await Promise.all(sessions.map(async (s) => {
        const v = await Api.get(Api.session(s.app_name, s.user_id, s.session_id) + "/verify").catch(() => null);
        if (v && v.ok === false) {
          brokenBySession[`${s.app_name}/${s.user_id}/${s.session_id}`] = v.broken ? { ...v.broken, kind: "session" }
            : { version: "?", reason: (v.drifted || []).map((d) => d.reason).join("; ") || "does not verify", kind: "session" };
        }
      }));
    }
    const purges = store ? await Api.get("/chronicle/purges").catch(() => null) : null;
    const broken = Object.keys(brokenBySession).length + others.length + ((store && store.drifted) || []).length;
    const rows = sessions.map((s) => {
      const b = brokenBySession[`${s.app_name}/${s.user_id}/${s.session_id}`];
      return h("tr", { class: b ? "selected-b" : "", dataset: { session: s.session_id, chain: b ? "broken" : "ok" } },
        h("td", {}, link(s.session_id, sessionHash("session", s.app_name, s.user_id, s.session_id))),
        h("td", {}, s.app_name), h("td", {}, s.user_id), h("td", {}, s.version),
        h("td", {}, b ? badge("broken", "bad") : badge("ok", "ok")),
        h("td", {}, b ? h("div", {}, h("strong", {}, `at version ${b.version}`), b.event_id ? h("span", { class: "muted mono" }, ` event ${short(b.event_id, 14)}`) : "",
          h("div", {}, b.reason), foundExpected(b)) : ""));
    });
    return h("div", { id: "audit" },
      h("h1", {}, "Audit"),
      h("div", { class: "sub" }, store ? `The whole store was checked: ${plural(store.logs, "log")}, ${plural(store.events, "event")}.` : "Your sessions were checked, one chain each (an operator token checks the whole store)."),
      broken ? h("div", { class: "error-box", id: "audit-summary" }, `${plural(broken, "problem")}: a log or a row derived from it was changed outside Chronicle.`)
        : h("div", { class: "ok-box", id: "audit-summary" }, "Every chain holds."),
      store && store.scoped && store.scoped.length ? h("div", { class: "error-box" }, `${store.scoped.length} shared-state rows differ from the log: `,
        store.scoped.map((m) => `${m.app_name}/${m.user_id || "app"} ${m.key}: ${m.reason}`).join("; ")) : "",
      store && store.drifted && store.drifted.length ? h("div", { class: "error-box", id: "drifted" }, h("strong", {}, `${store.drifted.length} derived rows differ from the log:`),
        store.drifted.map((d) => h("div", {}, `${d.kind} · ${d.where}: ${d.reason}`, foundExpected(d)))) : "",
      others.length ? h("div", { class: "panel" }, h("h3", {}, "Other logs"), others.map((b) => h("div", {}, badge(b.kind, "bad"), ` ${b.app_name || ""} ${b.user_id || ""} at version ${b.version}: ${b.reason}`, foundExpected(b)))) : "",
      h("table", { id: "chains" }, h("thead", {}, h("tr", {}, ["session", "app", "user", "version", "chain", "where"].map((t) => h("th", {}, t)))), h("tbody", {}, rows)),
      h("h2", {}, "Purge record"),
      purges === null ? h("div", { class: "muted" }, "The purge record needs an operator token.")
        : purges.length ? h("table", { id: "purges" }, h("thead", {}, h("tr", {}, ["#", "when", "by", "reason", "scope", "destroyed"].map((t) => h("th", {}, t)))),
          h("tbody", {}, purges.map((p) => h("tr", {}, h("td", {}, p.version), h("td", {}, when(p.purged_time)), h("td", {}, p.by), h("td", {}, p.reason),
            h("td", { class: "mono" }, short(p.scope, 80)), h("td", { class: "mono" }, short(p.counts, 120))))))
          : h("div", { class: "panel muted", id: "purges" }, "No purge was ever run on this store."),
    );
  },
};
