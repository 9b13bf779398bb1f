// Eval runs side by side: pick two recorded runs of an app (`chronicle eval --store`), and see per
// case and turn what changed from A to B: the tool calls with their arguments, the answer, the tokens.
"use strict";

const EvalPage = {
  async render(app, params) {
    const apps = await Api.get("/list-apps").catch(() => []);
    app = app || apps[0];
    if (!app) return h("div", { class: "empty panel" }, "No app here.");
    const runs = await Api.get(`/apps/${encodeURIComponent(app)}/eval/runs`);
    const a = params.a || (runs[1] && runs[1].run_id), b = params.b || (runs[0] && runs[0].run_id);
    const pickApp = h("select", { id: "eval-app", onchange: () => go("/eval/" + encodeURIComponent(pickApp.value)) },
      [...new Set([...apps, app])].map((x) => h("option", { value: x, selected: x === app }, x)));
    const pickRun = (name, chosen) => h("select", { name, id: "eval-run-" + name },
      runs.map((r) => h("option", { value: r.run_id, selected: r.run_id === chosen },
        `${r.run_id} · ${plural(r.cases, "case")} · ${when(r.started)}`)));
    const form = h("form", { class: "panel row", id: "eval-pick" },
      h("label", {}, "App", pickApp), h("label", {}, "A", pickRun("a", a)), h("label", {}, "B", pickRun("b", b)),
      h("button", { class: "primary", type: "submit" }, "Compare"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      go(`/eval/${encodeURIComponent(app)}?` + new URLSearchParams([...new FormData(form)]));
    });
    const head = [h("h1", {}, "Eval runs"), form];
    if (!runs.length) {
      return h("div", {}, ...head, h("div", { class: "empty panel" },
        "No eval run of this app is recorded here: run `chronicle eval` with --store to record one."));
    }
    if (!a || !b) return h("div", {}, ...head, h("div", { class: "empty panel" }, "One run only: record another to compare."));
    const found = await Api.get(`/apps/${encodeURIComponent(app)}/eval/compare`, { a, b });
    const changedTurns = found.cases.reduce((n, c) => n + c.turns.filter((t) => t.changed.length).length, 0);
    return h("div", { id: "eval-compare" }, ...head,
      h("div", { class: "sub" }, `${plural(found.cases.length, "case")} in both runs; ${plural(changedTurns, "turn")} changed`),
      found.cases.map((c) => EvalPage.caseBlock(app, c)));
  },

  caseBlock(app, c) {
    const side = (s, changed) => h("td", {},
      s.calls.map((call) => h("div", { class: "tool mono" + (changed.includes("trajectory") ? " changed" : "") }, `${call.name}(${short(call.args, 200)})`)),
      h("div", { class: changed.includes("answer") ? "changed" : "" }, s.answer || h("span", { class: "muted" }, "(no answer)")),
      h("div", { class: "muted" + (changed.includes("tokens") ? " changed" : "") }, plural(s.tokens, "token")));
    const rows = c.turns.map((t) => h("tr", { dataset: { turn: t.turn, changed: t.changed.join(" ") } },
      h("td", {}, t.turn), h("td", {}, short(t.user || "", 120)), side(t.a, t.changed), side(t.b, t.changed),
      h("td", {}, t.changed.length ? t.changed.map((x) => badge(x, "bad")) : badge("same", "ok"))));
    const extra = c.turns_a !== c.turns_b ? h("div", { class: "error-box" }, `A took ${plural(c.turns_a, "turn")}, B ${plural(c.turns_b, "turn")}`) : "";
    const sessionLink = (id, user) => link(id, sessionHash("session", app, user, id));
    return h("section", { class: "panel eval-case", dataset: { case: c.case } },
      h("div", { class: "row" }, h("h3", {}, `case ${c.case}`),
        h("span", { class: "muted" }, "A: ", sessionLink(c.session_a, c.user_a), " · B: ", sessionLink(c.session_b, c.user_b))),
      extra,
      h("table", {}, h("thead", {}, h("tr", {}, ["turn", "user", "A", "B", "changed"].map((x) => h("th", {}, x)))), h("tbody", {}, rows)));
  },
};
