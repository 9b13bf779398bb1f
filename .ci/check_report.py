"""Fail CI when a required part of the suite did not run: PostgreSQL tests, or any skip."""

import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
skipped = [c for c in cases if c.find("skipped") is not None]
failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
postgres_passed = [
    c for c in cases if "postgres" in c.get("name", "") and c not in skipped and c not in failed
]
print(f"{len(cases)} tests, {len(failed)} failed, {len(skipped)} skipped, {len(postgres_passed)} PostgreSQL tests passed")
if skipped:
    for c in skipped:
        print("skipped:", c.get("classname"), c.get("name"))
if failed or skipped or len(postgres_passed) < 10:
    sys.exit(1)
