// The router: #/page/... in the address bar picks the page; every page renders into <main>.
"use strict";

const Pages = {
  sessions: (args, params) => SessionsPage.render(params),
  session: (args, params) => TimelinePage.render(...args, params),
  travel: (args, params) => TravelPage.render(...args, params),
  artifacts: (args, params) => ArtifactsPage.render(...args, params),
  audit: (args, params) => AuditPage.render(params),
  analytics: (args, params) => AnalyticsPage.render(args[0], params),
  chat: ([app, user, session], params) => ChatPage.render(app, user, session, params),
  workflow: (args, params) => WorkflowPage.render(...args, params),
  eval: (args, params) => EvalPage.render(args[0], params),
};

function currentRoute() {
  const raw = location.hash.replace(/^#\/?/, "") || "sessions";
  const [path, query] = raw.split("?");
  const [page, ...args] = path.split("/").map(decodeURIComponent);
  return { page, args, params: Object.fromEntries(new URLSearchParams(query || "")) };
}

let routed = 0;  // a newer navigation wins over an older one still loading

async function route() {
  const mine = ++routed;
  const hash = location.hash;
  const { page, args, params } = currentRoute();
  const view = document.getElementById("view");
  document.querySelectorAll("[data-nav]").forEach((a) => a.classList.toggle("here", a.dataset.nav === page || (!["audit", "analytics", "chat", "eval"].includes(page) && a.dataset.nav === "sessions")));
  const render = Pages[page];
  view.dataset.page = page;
  view.dataset.ready = "";
  if (!render) { view.replaceChildren(h("p", {}, "No such page.")); return; }
  let content;
  try {
    content = await render(args, params);
  } catch (error) {
    content = errorBox(error);
  }
  if (mine !== routed) return;
  view.replaceChildren(content);
  view.dataset.hash = hash;  // what is shown, for tests and bookmarks: ready once it is this address
  view.dataset.ready = "1";
}

function go(hash) {
  if (location.hash === "#" + hash) route(); else location.hash = hash;
}

document.getElementById("token-button").addEventListener("click", async () => { await askForToken(); route(); });
window.addEventListener("hashchange", route);
route();
