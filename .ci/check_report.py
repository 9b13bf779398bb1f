"""Fail CI when a required part of the suite did not run: PostgreSQL tests, the side-by-side
parity tests against google-adk, or anything skipped."""

import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
skipped = [c for c in cases if c.find("skipped") is not None]
failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
passed = [c for c in cases if c not in skipped and c not in failed]
postgres_passed = [c for c in passed if "postgres" in c.get("name", "")]
parity_passed = [c for c in passed if c.get("classname", "").endswith("test_adk_parity")]
print(
    f"{len(cases)} tests, {len(failed)} failed, {len(skipped)} skipped, "
    f"{len(postgres_passed)} PostgreSQL tests passed, {len(parity_passed)} parity tests passed"
)
for c in skipped:
    print("skipped:", c.get("classname"), c.get("name"))
if failed or skipped or len(postgres_passed) < 10 or len(parity_passed) < 9:
    sys.exit(1)
