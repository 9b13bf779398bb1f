// A session's timeline: invocations with their steps, rewound ranges greyed, forks linked both
// ways, open requests answerable, and the actions (rewind, fork, replay), each confirmed first.
"use strict";

const TimelinePage = {
  async render(app, user, session, params) {
    const base = Api.session(app, user, session);
    const [page, pending, verify, related, spans, apps] = await Promise.all([
      Api.get(base + "/history", { limit: params.limit }),  // the newest page; earlier ones on request
      Api.get(base + "/pending").catch(() => []),
      Api.get(base + "/verify").catch((e) => ({ ok: null, error: e })),
      Api.get("/chronicle/sessions", { app, user, session }).catch(() => []),  // this one's status and forks
      Api.get(`/chronicle/apps/${encodeURIComponent(app)}/users/${encodeURIComponent(user)}/sessions/${encodeURIComponent(session)}/traces`)
        .then((t) => t.spans || []).catch(() => null),
      Api.get("/list-apps").catch(() => []),
    ]);
    const me = related.find((s) => s.session_id === session) || { status: [], forks: [] };
    const served = apps.includes(app);
    const ctx = { app, user, session, base, history: page.timeline, window: page.window, params, served };
    const history = ctx.history;
    const ranWorkflow = history.invocations.some((inv) => inv.steps.some((s) => s.node));
    const broken = verify && verify.ok === false ? verify.broken : null;
    const drifted = (verify && verify.drifted) || [];
    return h("div", { id: "timeline" },
      h("h1", {}, "Session ", h("span", { class: "mono" }, session)),
      h("div", { class: "sub" }, `app ${app} · user ${user} · created ${when(history.created)} · ${plural(me.events ?? history.events, "event")} · `,
        (me.status || []).map((s) => badge(s)),
        verify.ok === true ? badge("chain ok", "ok") : verify.ok === false ? badge("chain broken", "bad") : ""),
      h("div", { class: "row", style: "margin-bottom:12px" },
        link("Time travel", sessionHash("travel", app, user, session)), "·",
        link("Artifacts", sessionHash("artifacts", app, user, session)), "·",
        ranWorkflow ? [link("Workflow graph", sessionHash("workflow", app, user, session)), "·"] : "",
        served ? link("Chat", sessionHash("chat", app, user, session)) : h("span", { class: "muted", title: `the app ${app} is not served here` }, "Chat"), "·",
        h("a", { href: "#", onclick: (e) => { e.preventDefault(); TimelinePage.download(base); } }, "Export JSONL"),
      ),
      served ? "" : notServed(app, "run, replay or answer"),
      broken ? h("div", { class: "error-box", id: "broken-link" },
        h("strong", {}, `The hash chain breaks at version ${broken.version}: `), broken.reason,
        foundExpected(broken)) : "",
      drifted.length ? h("div", { class: "error-box", id: "drifted" }, h("strong", {}, "Derived rows differ from the log: "),
        drifted.map((d) => h("div", {}, `${d.kind} · ${d.where}: ${d.reason}`, foundExpected(d)))) : "",
      TimelinePage.forks(ctx, me),
      history.deleted ? h("div", { class: "error-box" }, `Deleted ${when(history.deleted)}; its log is kept.`) : "",
      pending.length ? TimelinePage.pending(ctx, pending) : "",
      spans && spans.length ? Waterfall.panel(spans, history) : "",
      h("div", { id: "replay-report" }),
      h("div", { id: "invocations" }, TimelinePage.invocations(ctx, broken)),
    );
  },

  // The invocations loaded so far, after a button that loads the page before them (a long
  // session's history comes a window at a time, newest first).
  invocations(ctx, broken) {
    const invs = ctx.history.invocations;
    const earlier = ctx.window && ctx.window.earlier;
    return [
      earlier ? h("button", { id: "earlier", onclick: () => TimelinePage.earlier(ctx, broken) },
        `Show earlier events (${plural(earlier - 1, "event")} before version ${earlier})`) : "",
      invs.length ? invs.map((inv, i) => TimelinePage.invocation(ctx, inv, invs[i + 1], broken))
        : h("div", { class: "empty panel" }, "No invocation yet."),
    ];
  },

  async earlier(ctx, broken) {
    const page = await Api.get(ctx.base + "/history", { before: ctx.window.earlier, limit: ctx.params.limit });
    const older = page.timeline.invocations, newer = ctx.history.invocations;
    const last = older[older.length - 1];
    if (last && newer.length && last.invocation_id === newer[0].invocation_id) {  // one invocation across the pages
      newer[0] = { ...newer[0], steps: last.steps.concat(newer[0].steps), first_version: last.first_version,
        started: last.started, rewound: last.rewound || newer[0].rewound };
      older.pop();
    }
    ctx.history.invocations = older.concat(newer);
    if (page.window.first === 1) ctx.history.initial_state = page.timeline.initial_state;
    ctx.window = { ...ctx.window, first: page.window.first, earlier: page.window.earlier };
    document.getElementById("invocations").replaceChildren(...[TimelinePage.invocations(ctx, broken)].flat(Infinity).filter((c) => c));
  },

  forks(ctx, me) {
    const from = ctx.history.forked_from;
    if (!from && !(me.forks || []).length) return "";
    return h("div", { class: "panel", id: "fork-links" },
      from ? h("div", {}, "Forked from ", link(from.source_session_id, sessionHash("session", ctx.app, ctx.user, from.source_session_id)),
        ` at its version ${from.source_version}`) : "",
      (me.forks || []).length ? h("div", {}, "Forked into ", me.forks.map((f, i) => [i ? ", " : "", link(f, sessionHash("session", ctx.app, ctx.user, f))])) : "",
    );
  },

  pending(ctx, requests) {
    return h("div", { class: "panel pending", id: "pending" },
      h("h2", { style: "margin-top:0" }, "Waiting for a person"),
      requests.map((r) => h("div", { class: "row", dataset: { request: r.call_id }, style: "padding:6px 0" },
        badge(r.kind, "waiting"),
        h("div", { class: "grow" }, h("strong", {}, r.tool || r.name), " asked by ", r.agent, r.asks ? h("div", { class: "muted" }, r.asks) : "",
          r.kind === "confirmation" ? h("pre", {}, json((r.args.originalFunctionCall || {}).args || {})) : ""),
        r.kind === "confirmation" ? [
          h("button", { class: "primary", onclick: () => TimelinePage.answer(ctx, r, { confirmed: true }, "Approve"), ...needsApp(ctx) }, "Approve"),
          h("button", { class: "danger", onclick: () => TimelinePage.answer(ctx, r, { confirmed: false }, "Reject"), ...needsApp(ctx) }, "Reject"),
        ] : r.kind !== "credential" ? TimelinePage.inputForm(ctx, r) : h("span", { class: "muted" }, "answer with a credential through /run"),
      )));
  },

  inputForm(ctx, r) {
    const input = h("input", { placeholder: "your answer (text or JSON)", size: 28, disabled: !ctx.served });
    return [input, h("button", { class: "primary", ...needsApp(ctx), onclick: () => {
      let payload = input.value;
      try { payload = JSON.parse(payload); } catch (e) { /* plain text */ }
      TimelinePage.answer(ctx, r, { payload }, "Send");
    } }, "Send")];
  },

  async answer(ctx, r, body, verb) {
    const what = h("div", {}, h("p", {}, `${verb} ${r.tool || r.name} for ${ctx.user}? The answer is recorded in the session's log and the run resumes.`),
      h("pre", {}, json(body)));
    if (!(await confirmAction(`${verb} this request`, what, verb))) return;
    try {
      await Api.post(`${ctx.base}/pending/${encodeURIComponent(r.call_id)}`, body);
      route();
    } catch (error) { document.getElementById("pending").prepend(errorBox(error)); }
  },

  invocation(ctx, inv, next, broken) {
    const usage = {};
    inv.steps.forEach((s) => Object.entries(s.usage || {}).forEach(([k, v]) => { usage[k] = (usage[k] || 0) + v; }));
    const authors = [...new Set(inv.steps.map((s) => s.author))];
    const isMarker = inv.steps.length && inv.steps.every((s) => s.rewind_before);
    const actions = isMarker || inv.rewound ? [] : [
      h("button", { onclick: () => TimelinePage.rewind(ctx, inv) }, "Rewind to before"),
      h("button", { onclick: () => TimelinePage.fork(ctx, inv, next) }, "Fork from here"),
      h("button", { onclick: () => TimelinePage.replay(ctx, inv), ...needsApp(ctx) }, "Replay from here"),
    ];
    return h("section", { class: "invocation" + (inv.rewound ? " rewound" : "") + (inv.copied ? " copied" : "") + (inv.interrupted ? " interrupted" : ""), dataset: { invocation: inv.invocation_id } },
      h("div", { class: "inv-head" },
        h("span", { class: "id mono" }, inv.invocation_id || "(no invocation)"),
        h("span", { class: "muted" }, when(inv.started)),
        h("span", {}, ms((inv.ended - inv.started) * 1000)),
        usage.total ? h("span", { class: "muted" }, `${plural(usage.total, "token")} (${usage.prompt || 0} in, ${usage.candidates || 0} out)`) : "",
        h("span", { class: "muted" }, authors.join(", ")),
        inv.rewound ? badge(`rewound · ${inv.rewound_by || ""}`, "rewound") : "",
        inv.copied ? badge("copied from the source", "forked") : "",
        inv.interrupted ? badge(inv.interrupted_recorded ? "interrupted · recorded" : "interrupted", "bad") : "",
        h("span", { class: "inv-actions" }, actions)),
      inv.interrupted ? TimelinePage.interrupted(inv) : "",
      h("div", { class: "steps" }, inv.steps.map((s) => TimelinePage.step(ctx, s, broken))),
    );
  },

  // Why the turn is marked: its tool calls that no result answers (the process stopped, or lost
  // the session to another writer), and whether a later writer recorded that in the log.
  interrupted(inv) {
    const open = new Set(inv.open_calls);
    const calls = inv.steps.flatMap((s) => s.tool_calls).filter((c) => open.has(c.id));
    return h("div", { class: "interrupted-note" },
      h("strong", {}, "Interrupted: "), `${plural(inv.open_calls.length, "tool call")} without a result `,
      calls.map((c) => h("span", { class: "badge bad mono", dataset: { call: c.id } }, `${c.name} · ${c.id}`)),
      h("div", { class: "muted" }, inv.interrupted_recorded
        ? "Recorded in the log when the session's next invocation started: the turn's writer was gone."
        : "Read from the log: the turn's process stopped (killed, crashed) or lost the session to another writer."));
  },

  step(ctx, s, broken) {
    const isBroken = broken && broken.version === s.version;
    const body = [];
    if (s.rewind_before) body.push(h("div", {}, "⟲ Rewind marker: the session went back to before ", h("span", { class: "mono" }, s.rewind_before)));
    if (s.text) body.push(h("div", { class: "text" }, s.text));
    s.tool_calls.forEach((c) => body.push(h("div", { class: "tool" }, h("strong", {}, "call " + c.name), h("pre", {}, json(c.args)))));
    s.tool_results.forEach((r) => body.push(h("div", { class: "tool result" + (r.error ? " error" : "") }, h("strong", {}, (r.error ? "error from " : "result of ") + r.name), h("pre", {}, json(r.response)))));
    if (Object.keys(s.state_changes || {}).length) body.push(h("div", {}, h("span", { class: "muted" }, "state "), kv(s.state_changes)));
    Object.entries(s.artifacts || {}).forEach(([name, v]) => body.push(h("div", {}, h("span", { class: "muted" }, "artifact "),
      link(`${name} v${v}`, sessionHash("artifacts", ctx.app, ctx.user, ctx.session, { name, version: v })))));
    if (s.node) body.push(h("div", {}, badge(`node ${s.node.path}: ${s.node.status}`, "forked"), s.node.output !== null && s.node.output !== undefined ? h("pre", {}, json(s.node.output)) : "",
      s.node.error ? h("span", { class: "bad-text" }, s.node.error) : "", s.node.seconds ? h("span", { class: "muted" }, ` ${ms(s.node.seconds * 1000)}`) : ""));
    if (s.transfer_to) body.push(h("div", { class: "muted" }, "→ transfer to " + s.transfer_to));
    if (s.error) body.push(h("div", { class: "bad-text" }, s.error));
    if (isBroken) body.push(h("div", { class: "chain-warning", id: "broken-step" }, h("strong", {}, "⚠ This event does not match the chain: "), broken.reason, foundExpected(broken)));
    return h("div", { class: "step" + (isBroken ? " broken" : "") + (s.rewind_before ? " marker" : ""), dataset: { version: s.version, event: s.event_id } },
      h("div", {}, h("div", { class: "who" }, s.author),
        h("div", { class: "meta" }, `v${s.version}`, s.latency_ms !== null && s.latency_ms !== undefined ? ` · +${ms(s.latency_ms)}` : "",
          s.usage && s.usage.total ? ` · ${s.usage.total} tok` : ""),
        h("div", { class: "meta" }, link("state here", sessionHash("travel", ctx.app, ctx.user, ctx.session, { event: s.event_id })))),
      h("div", {}, body.length ? body : h("span", { class: "muted" }, "(no content)")));
  },

  async rewind(ctx, inv) {
    const text = `The session goes back to before ${inv.invocation_id}: its state and files as they were then. ` +
      "Nothing is deleted: the rewind is recorded in the log, and this turn and later ones stay visible, greyed.";
    if (!(await confirmAction("Rewind to before this invocation", text, "Rewind"))) return;
    await TimelinePage.act(() => Api.post(ctx.base + "/rewind", { invocationId: inv.invocation_id }), () => route());
  },

  async fork(ctx, inv, next) {
    const name = h("input", { id: "fork-id", value: `${ctx.session}-fork-${Date.now().toString(36)}`, size: 36 });
    const body = h("div", {}, h("p", {}, `A new session with this one's history up to and including ${inv.invocation_id}. This session is untouched.`),
      h("label", {}, "New session id", name));
    if (!(await confirmAction("Fork from here", body, "Fork"))) return;
    const req = { newSessionId: name.value.trim() || undefined };
    if (next) req.atInvocationId = next.invocation_id;
    await TimelinePage.act(() => Api.post(ctx.base + "/fork", req), (forked) => go(sessionHash("session", ctx.app, ctx.user, forked.id)));
  },

  async replay(ctx, inv) {
    const apps = await Api.get("/list-apps").catch(() => [ctx.app]);
    const through = h("select", { id: "replay-agent" }, apps.map((a) => h("option", { value: a, selected: a === ctx.app }, a === ctx.app ? `${a} (this app's current agent)` : a)));
    const body = h("div", {}, h("p", {}, `The user messages from ${inv.invocation_id} on run again, in a new fork, and the answers are compared turn by turn. This session is untouched.`),
      h("label", {}, "Through the agent of", through));
    if (!(await confirmAction("Replay from here", body, "Replay"))) return;
    const req = { fromInvocationId: inv.invocation_id };
    if (through.value !== ctx.app) req.agent = through.value;  // another app's agent (the server checks it is served)
    await TimelinePage.act(() => Api.post(ctx.base + "/replay", req), (report) => {
      const holder = document.getElementById("replay-report");
      holder.replaceChildren(h("div", { class: "panel", id: "replay-result" },
        h("h2", { style: "margin-top:0" }, "Replay ", report.identical ? badge("same answers", "ok") : badge("answers differ", "bad")),
        h("div", { class: "sub" }, "ran in ", link(report.session_id, sessionHash("session", ctx.app, ctx.user, report.session_id))),
        h("table", {}, h("thead", {}, h("tr", {}, ["turn", "user said", "recorded answer", "replayed answer"].map((t) => h("th", {}, t)))),
          h("tbody", {}, report.turns.map((t) => h("tr", { class: t.differs ? "selected-b" : "" },
            h("td", {}, t.index), h("td", {}, t.user_message), h("td", {}, t.recorded_answer),
            h("td", {}, t.error ? h("span", { class: "bad-text" }, t.error) : t.replayed_answer)))))));
      holder.scrollIntoView();
    });
  },

  async act(call, then) {
    try { then(await call()); } catch (error) { document.getElementById("timeline").prepend(errorBox(error)); }
  },

  async download(base) {
    const text = await Api.request("GET", base + "/export?format=jsonl");
    const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    h("a", { href: url, download: base.split("/").pop() + ".jsonl" }).click();
  },
};

// A button that runs the agent: disabled, with the reason on hover, when its app is not served here.
function needsApp(ctx) {
  return ctx.served ? {} : { disabled: true, title: `The app ${ctx.app} is not served by this server: start chronicle serve with its AGENTS_DIR to do this.` };
}

function foundExpected(broken) {
  const show = (v) => (v === null || v === undefined ? "(nothing)" : typeof v === "string" ? v : short(v, 300));
  if ((broken.found === null || broken.found === undefined) && (broken.expected === null || broken.expected === undefined)) return "";
  return h("div", { class: "found-expected" }, h("span", {}, "found"), h("span", {}, show(broken.found)),
    h("span", {}, "expected"), h("span", {}, show(broken.expected)));
}
