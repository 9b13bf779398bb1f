"""`chronicle bench serve`'s app, one definition behind both servers (tools.bench.orders_agent):
the server that imports it decides which library builds it. google-adk's `adk api_server` has
imported google.adk by the time it loads an app; `chronicle serve` never imports it."""

import sys

from tools.bench.orders_agent import build

root_agent = build("google.adk" if "google.adk" in sys.modules else "runtime")
