"""Fail CI when a required part of the suite did not run: PostgreSQL tests, the side-by-side
parity and model-request tests against google-adk, the web viewer's browser tests (a real
Chromium), the bridge for stock google-adk (its own report, from the google-adk environment:
`--bridge REPORT`), or anything skipped."""

import sys
import xml.etree.ElementTree as ET


def read(path):
    cases = list(ET.parse(path).getroot().iter("testcase"))
    skipped = [c for c in cases if c.find("skipped") is not None]
    failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    passed = [c for c in cases if c not in skipped and c not in failed]
    for c in skipped:
        print("skipped:", c.get("classname"), c.get("name"))
    return cases, skipped, failed, passed


def postgres(passed):
    return [c for c in passed if "postgres" in c.get("name", "")]


args = sys.argv[1:]
bridge_report = args[args.index("--bridge") + 1] if "--bridge" in args else None
cases, skipped, failed, passed = read(args[0])
parity_passed = [c for c in passed if c.get("classname", "").endswith("test_adk_parity")]
requests_passed = [c for c in passed if c.get("classname", "").endswith("test_adk_requests")]
browser_passed = [c for c in passed if c.get("classname", "").endswith("test_viewer")]
print(
    f"{len(cases)} tests, {len(failed)} failed, {len(skipped)} skipped, "
    f"{len(postgres(passed))} PostgreSQL tests passed, {len(parity_passed)} parity tests passed, "
    f"{len(requests_passed)} model-request tests passed, "
    f"{len(browser_passed)} browser tests passed"
)
ok = not (failed or skipped or len(postgres(passed)) < 10 or len(parity_passed) < 9 or len(requests_passed) < 20
          or len(browser_passed) < 8)

if bridge_report is not None:
    b_cases, b_skipped, b_failed, b_passed = read(bridge_report)
    bridge_passed = [c for c in b_passed if ".adk_bridge." in c.get("classname", "")]
    print(
        f"bridge: {len(b_cases)} tests, {len(b_failed)} failed, {len(b_skipped)} skipped, "
        f"{len(bridge_passed)} passed ({len(postgres(bridge_passed))} on PostgreSQL)"
    )
    ok = ok and not (b_failed or b_skipped or len(bridge_passed) < 40 or len(postgres(bridge_passed)) < 10)

if not ok:
    sys.exit(1)
