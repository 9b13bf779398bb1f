"""Runs google-adk's conformance client (`adk conformance test --mode replay`) against any server.

ADK's command always talks to http://127.0.0.1:8000; this drives the same runner
(`google.adk.cli.conformance.cli_test.ConformanceTestRunner`) with a base URL, so the suite can
run against `adk api_server` or `chronicle serve` on another port. Needs google-adk installed
(run it with the interpreter that has it). Prints one line per case and a summary; exits 1 if any
case failed.

    python -m tools.conformance.run_suite TESTS_DIR --base-url http://127.0.0.1:8765 --mode sse
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path


async def run(tests: Path, base_url: str, mode: str) -> list[dict]:
    from google.adk.agents.run_config import StreamingMode
    from google.adk.cli.conformance.adk_web_server_client import AdkWebServerClient
    from google.adk.cli.conformance.cli_test import ConformanceTestRunner

    streaming = StreamingMode.SSE if mode == "sse" else StreamingMode.NONE
    async with AdkWebServerClient(base_url=base_url, timeout=120.0) as client:
        summary = await ConformanceTestRunner([tests], client, "replay", streaming_mode=streaming).run_all_tests()
    return [
        {"case": f"{r.category}/{r.name}", "mode": mode, "passed": r.success, "error": r.error_message}
        for r in summary.results
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tests", type=Path, help="the suite's tests/ folder (or one category or case)")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--mode", choices=("none", "sse"), default="none")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results = asyncio.run(run(args.tests, args.base_url, args.mode))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    for r in results:
        print(f"{'PASS' if r['passed'] else 'FAIL'} {r['case']} [{r['mode']}]")
    print(f"{sum(r['passed'] for r in results)}/{len(results)} passed ({args.mode})")
    return 0 if results and all(r["passed"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
