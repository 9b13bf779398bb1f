// Analytics of an app as SVG charts: tokens, invocation latency percentiles, tool calls and
// error rates, per day and per agent, tool and user (an operator's view).
"use strict";

const AnalyticsPage = {
  async render(app) {
    const apps = await Api.get("/list-apps");
    app = app || apps[0];
    const pick = h("select", { id: "analytics-app", onchange: () => go("/analytics/" + encodeURIComponent(pick.value)) },
      apps.map((a) => h("option", { value: a, selected: a === app }, a)));
    const a = await Api.get(`/apps/${encodeURIComponent(app)}/analytics/summary`);
    const rate = (errors, calls) => (calls ? errors / calls : 0);
    const days = Object.entries(a.days || {}).map(([label, c]) => ({ label, c }));
    const named = (obj, f) => Object.entries(obj || {}).map(([label, v]) => ({ label, values: f(v) }));
    const inv = a.invocation_latency;
    const t = a.totals || {};
    return h("div", { id: "analytics" },
      h("div", { class: "row" }, h("h1", {}, "Analytics"), h("label", {}, "App", pick)),
      h("div", { class: "sub" }, [plural(t.sessions || 0, "session"), plural(t.invocations || 0, "invocation"), plural(t.interrupted || 0, "interrupted invocation"), plural(t.llm_calls || 0, "model call"),
        plural(t.tool_calls || 0, "tool call"), plural(t.total_tokens || 0, "token"), plural(a.rewinds || 0, "rewind"), plural(a.forks || 0, "fork")].join(" · ")),
      h("div", { class: "grid2" },
        dayChart("Tokens per day", days.map((d) => ({ label: d.label, values: [d.c.prompt_tokens, d.c.candidate_tokens] })), ["prompt", "candidates"], "", "chart-tokens-day"),
        hbarChart("Invocation latency percentiles", inv ? [["p50", inv.p50_ms], ["p90", inv.p90_ms], ["p95", inv.p95_ms], ["p99", inv.p99_ms], ["max", inv.max_ms]]
          .map(([label, v]) => ({ label, values: [v] })) : [], ["latency"], "ms", "chart-latency"),
        dayChart("Tool calls per day", days.map((d) => ({ label: d.label, values: [d.c.tool_calls, d.c.llm_calls] })), ["tool calls", "model calls"], "", "chart-tools-day"),
        dayChart("Error rates per day", days.map((d) => ({ label: d.label, values: [rate(d.c.llm_errors, d.c.llm_calls), rate(d.c.tool_errors, d.c.tool_calls)] })), ["model errors", "tool errors"], "%", "chart-errors-day"),
        hbarChart("Per agent: tokens", named(a.agents, (g) => [g.total_tokens]), ["tokens"], "", "chart-agent-tokens"),
        hbarChart("Per agent: model latency", named(a.agents, (g) => [g.llm_latency.p50_ms, g.llm_latency.p95_ms]), ["p50", "p95"], "ms", "chart-agent-latency"),
        hbarChart("Per tool: calls and errors", named(a.tools, (g) => [g.calls, g.errors]), ["calls", "errors"], "", "chart-tool-calls"),
        hbarChart("Per tool: latency", named(a.tools, (g) => [g.latency.p50_ms, g.latency.p95_ms]), ["p50", "p95"], "ms", "chart-tool-latency"),
        hbarChart("Per user: tokens", named(a.users, (u) => [u.total_tokens]), ["tokens"], "", "chart-user-tokens"),
        hbarChart("Per user: error rate", named(a.users, (u) => [rate(u.llm_errors, u.llm_calls), rate(u.tool_errors, u.tool_calls)]), ["model errors", "tool errors"], "%", "chart-user-errors"),
      ));
  },
};
