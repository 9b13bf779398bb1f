// Time travel: move the cursor to any event and see the session's, user: and app: state and the
// artifacts as they were then; pick a second event to see the diff between the two.
"use strict";

const TravelPage = {
  async render(app, user, session, params) {
    const base = Api.session(app, user, session);
    const history = (await Api.get(base + "/history")).timeline;
    const events = history.invocations.flatMap((inv) => inv.steps.map((s) => ({ ...s, invocation_id: inv.invocation_id, rewound: inv.rewound })));
    if (!events.length) return h("div", {}, h("h1", {}, "Time travel"), h("div", { class: "empty panel" }, "No event yet."));
    let a = Math.max(0, events.findIndex((e) => e.event_id === params.event));
    if (!params.event) a = events.length - 1;
    let b = params.to ? events.findIndex((e) => e.event_id === params.to) : -1;
    const stateBox = h("div", { id: "state-at" });
    const diffBox = h("div", { id: "diff" });
    const slider = h("input", { type: "range", id: "time-cursor", min: 0, max: events.length - 1, value: a, "aria-label": "time cursor" });
    const label = h("span", { id: "cursor-label", class: "mono" });
    const rows = events.map((e, i) => h("tr", { class: "clickable" + (e.rewound ? " muted" : ""), dataset: { event: e.event_id, index: i },
      onclick: (ev) => (ev.shiftKey ? pickB(i) : pickA(i)) },
      h("td", {}, `v${e.version}`), h("td", { class: "mono" }, short(e.invocation_id, 14)), h("td", {}, e.author),
      h("td", {}, short(e.text || (e.tool_calls[0] && "call " + e.tool_calls[0].name) || (e.tool_results[0] && "result of " + e.tool_results[0].name) || (e.rewind_before && "rewind marker") || "", 60)),
      h("td", {}, h("button", { class: "compare", onclick: (ev) => { ev.stopPropagation(); pickB(i); } }, "diff to here"))));

    let asked = 0;  // the cursor may move faster than answers come: only the latest is shown
    async function showState() {
      const mine = ++asked;
      rows.forEach((r, i) => { r.classList.toggle("selected", i === a); r.classList.toggle("selected-b", i === b); });
      const e = events[a];
      slider.value = a;
      label.textContent = `v${e.version} · ${e.author} · ${when(e.timestamp)}`;
      stateBox.dataset.ready = "";
      try {
        const st = await Api.get(base + "/state", { event: e.event_id });
        if (mine !== asked) return;
        stateBox.replaceChildren(h("div", { class: "grid2" },
          h("div", { class: "panel" }, h("h3", {}, "Session state"), h("div", { id: "session-state" }, kv(st.state))),
          h("div", { class: "panel" }, h("h3", {}, "user: state"), h("div", { id: "user-state" }, kv(st.user_state))),
          h("div", { class: "panel" }, h("h3", {}, "app: state"), h("div", { id: "app-state" }, kv(st.app_state))),
          h("div", { class: "panel" }, h("h3", {}, "Artifacts then"), h("div", { id: "artifacts-then" },
            kv(Object.fromEntries([...Object.entries(st.artifacts), ...Object.entries(st.user_artifacts)].map(([k, v]) => [k, "v" + v]))))),
        ));
        stateBox.dataset.version = st.version;
      } catch (error) { if (mine !== asked) return; stateBox.replaceChildren(errorBox(error)); }
      stateBox.dataset.ready = "1";
    }

    async function showDiff() {
      if (b < 0) { diffBox.replaceChildren(h("div", { class: "muted" }, "Shift-click an event, or press “diff to here”, to see what changed between the two.")); return; }
      const [from, to] = a <= b ? [events[a], events[b]] : [events[b], events[a]];
      diffBox.dataset.ready = "";
      try {
        const d = await Api.get(base + "/diff", { from_event: from.event_id, to_event: to.event_id });
        diffBox.replaceChildren(h("div", { class: "panel" },
          h("h3", {}, `Diff from v${from.version} to v${to.version} (${plural(d.events, "event")})`),
          d.changes.length ? h("table", { id: "diff-table" }, h("thead", {}, h("tr", {}, ["scope", "key", "before", "after", "written by"].map((t) => h("th", {}, t)))),
            h("tbody", {}, d.changes.map((c) => h("tr", { dataset: { key: c.key } }, h("td", {}, c.scope), h("td", { class: "mono" }, c.key),
              h("td", { class: "mono diff-del" }, c.before_absent ? "(absent)" : short(c.before, 80)),
              h("td", { class: "mono diff-add" }, c.after_absent ? "(absent)" : short(c.after, 80)),
              h("td", { class: "muted" }, c.writes.map((w) => `${w.author} v${w.version}`).join(", "))))))
            : h("div", { class: "muted" }, "No change.")));
      } catch (error) { diffBox.replaceChildren(errorBox(error)); }
      diffBox.dataset.ready = "1";
    }

    function pickA(i) { a = i; showState(); showDiff(); }
    function pickB(i) { b = i; showState(); showDiff(); }
    slider.addEventListener("input", () => pickA(Number(slider.value)));

    const page = h("div", { id: "travel" },
      h("h1", {}, "Time travel"),
      h("div", { class: "sub" }, "Session ", link(session, sessionHash("session", app, user, session)), ` · app ${app} · user ${user}`),
      h("div", { class: "panel cursor-bar" }, h("strong", {}, "Cursor"), slider, label),
      stateBox, diffBox,
      h("h2", {}, "Events"),
      h("table", { id: "events" }, h("thead", {}, h("tr", {}, ["", "invocation", "author", "what", ""].map((t) => h("th", {}, t)))), h("tbody", {}, rows)),
    );
    await Promise.all([showState(), showDiff()]);
    return page;
  },
};
