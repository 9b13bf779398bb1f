"""The HTTP server: google-adk's API server routes (same paths, same JSON) over Chronicle's
services, plus Chronicle's own routes (rewind, fork, history, state-at, diff, verify, analytics,
export, pending requests). Built on Starlette; `chronicle serve` runs it under uvicorn.

One idea per module: `config` (what a server is told), `app_loader` and `agent_config` (finding
apps in AGENTS_DIR, as ADK does), `auth` (who is calling and whose data they may reach),
`http` (JSON in and out, errors as status codes), `services` (the store's services and a Runner
per app), then the routes: `routes_basic`, `routes_sessions`, `routes_artifacts`, `routes_run`,
`routes_chronicle`, `routes_answer` (answer a person's request), `routes_viewer` (session search,
the purge record, analytics with percentiles) and `routes_ui` (the web viewer's files at /ui), and
`app` (which puts them together)."""

from runtime.server.app import create_app
from runtime.server.config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
