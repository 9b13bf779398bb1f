// Chat with a served app: a turn is sent to POST /run_sse and its events are drawn as they stream
// in; a confirmation the agent asks for is approved or rejected here, and that answer streams too.
"use strict";

const ChatPage = {
  async render(app, user, session, params) {
    const apps = await Api.get("/list-apps").catch(() => []);
    if (!app || !session) return ChatPage.start(apps, app, user, params);
    const base = Api.session(app, user, session);
    const stored = await Api.get(base);
    const served = apps.includes(app);
    const log = h("div", { id: "chat-log", class: "chat-log" });
    stored.events.forEach((e) => ChatPage.show(log, e, { app, user, session, served, live: false }));
    const input = h("textarea", { id: "chat-input", rows: 2, placeholder: served ? "Your message" : "", disabled: !served });
    const send = h("button", { class: "primary", id: "chat-send", type: "submit", disabled: !served }, "Send");
    const form = h("form", { class: "chat-form", id: "chat-form" }, input, send);
    const ctx = { app, user, session, served, log, form };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      input.value = "";
      ChatPage.turn(ctx, { role: "user", parts: [{ text }] });
    });
    input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); } });
    return h("div", { id: "chat" },
      h("h1", {}, "Chat ", h("span", { class: "mono" }, session)),
      h("div", { class: "row sub" }, `app ${app} · user ${user} · `, link("Timeline", sessionHash("session", app, user, session))),
      served ? "" : notServed(app, "send a message"),
      h("div", { class: "panel chat-panel" }, log.childElementCount ? log : [log, h("div", { class: "empty", id: "chat-empty" }, "No message yet.")], form),
    );
  },

  // No session chosen: pick a served app and a user, and start a new session.
  start(apps, app, user, params) {
    const pick = h("select", { name: "app" }, apps.map((a) => h("option", { value: a, selected: a === app }, a)));
    const who = h("input", { name: "user", value: user || params.user || "user", size: 12 });
    const form = h("form", { class: "panel row", id: "chat-start" }, h("label", {}, "App", pick), h("label", {}, "User", who),
      h("button", { class: "primary", type: "submit", disabled: !apps.length }, "New session"));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const made = await Api.post(`/apps/${encodeURIComponent(pick.value)}/users/${encodeURIComponent(who.value.trim())}/sessions`, {});
        go(sessionHash("chat", pick.value, who.value.trim(), made.id));
      } catch (error) { form.after(errorBox(error)); }
    });
    return h("div", { id: "chat" }, h("h1", {}, "Chat"),
      h("div", { class: "sub" }, "Talk to an app this server serves: each turn runs through POST /run_sse and is recorded in the session's log."),
      apps.length ? form : h("div", { class: "empty panel" }, "This server serves no app (it was started without AGENTS_DIR): there is nothing to talk to."));
  },

  async turn(ctx, message) {
    const { log, form } = ctx;
    document.getElementById("chat-empty")?.remove();
    if (message.parts.some((p) => p.text)) ChatPage.show(log, { author: "user", content: message }, ctx);
    form.querySelectorAll("button, textarea").forEach((el) => { el.disabled = true; });
    log.dataset.streaming = "1";
    try {
      await Api.stream("/run_sse", { appName: ctx.app, userId: ctx.user, sessionId: ctx.session, newMessage: message, streaming: false },
        (event) => (event.error ? log.append(h("div", { class: "error-box" }, event.error)) : ChatPage.show(log, event, { ...ctx, live: true })));
    } catch (error) {
      log.append(errorBox(error));
    } finally {
      form.querySelectorAll("button, textarea").forEach((el) => { el.disabled = false; });
      log.dataset.streaming = "";
      log.dataset.turns = String(Number(log.dataset.turns || 0) + 1);
    }
  },

  show(log, event, ctx) {
    const parts = (event.content && event.content.parts) || [];
    const body = [];
    parts.forEach((p) => {
      if (p.text && !p.thought) body.push(h("div", { class: "text" }, p.text));
      if (p.functionCall) body.push(ChatPage.call(p.functionCall, ctx));
      if (p.functionResponse) body.push(h("div", { class: "tool result" }, h("strong", {}, "result of " + p.functionResponse.name), h("pre", {}, json(p.functionResponse.response))));
    });
    if (event.errorMessage) body.push(h("div", { class: "bad-text" }, event.errorMessage));
    if (!body.length) return;
    log.append(h("div", { class: "bubble " + (event.author === "user" ? "mine" : "theirs"), dataset: { author: event.author || "" } },
      h("div", { class: "who" }, event.author), body));
    log.scrollTop = log.scrollHeight;
  },

  call(call, ctx) {
    if (call.name !== "adk_request_confirmation") {
      return h("div", { class: "tool" }, h("strong", {}, "call " + call.name), h("pre", {}, json(call.args)));
    }
    const original = (call.args && call.args.originalFunctionCall) || {};
    const hint = ((call.args && call.args.toolConfirmation) || {}).hint;
    const answer = (confirmed) => {
      box.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      box.append(h("div", { class: "muted" }, confirmed ? "approved" : "rejected"));
      ChatPage.turn(ctx, { role: "user", parts: [{ functionResponse: { id: call.id, name: call.name, response: { confirmed } } }] });
    };
    const open = ctx.live && ctx.served;
    const box = h("div", { class: "pending confirm", dataset: { request: call.id } },
      h("div", {}, badge("confirmation", "waiting"), h("strong", {}, ` ${original.name || "a tool"}`), " asks to run with"),
      h("pre", {}, json(original.args || {})), hint ? h("div", { class: "muted" }, hint) : "",
      open ? h("div", { class: "row" }, h("button", { class: "primary", onclick: () => answer(true) }, "Approve"),
        h("button", { class: "danger", onclick: () => answer(false) }, "Reject")) : "");
    return box;
  },
};

// What a page says where an action needs the app and the server does not serve it.
function notServed(app, what) {
  return h("div", { class: "notice", id: "not-served" }, `Read-only: the app ${app} is not served by this server, so you cannot ${what} here. `,
    "Its stored sessions open, rewind and fork all the same; start ", h("code", {}, "chronicle serve"), " with its AGENTS_DIR to run it.");
}
