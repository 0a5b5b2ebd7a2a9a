#!/usr/bin/env python3
"""The --fleet path of experiments/findings/run: a throwaway local PostgreSQL server (the fleet
tests' tests/support/pg_server.py) holding the campaign's jobs.

    fleet.py start STATE   prints the store URL; STATE (a file) remembers the server
    fleet.py stop STATE    stops it and removes its folder
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "support"))
from pg_server import PgServer  # noqa: E402


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: fleet.py start|stop STATE")
    state = sys.argv[2]
    if sys.argv[1] == "start":
        server = PgServer().start()
        url = server.createdb("campaign")
        with open(state, "w") as f:
            json.dump({"dir": server.dir, "port": server.port, "run_as": server.run_as}, f)
        print(url)
        return
    with open(state) as f:
        saved = json.load(f)
    server = PgServer.__new__(PgServer)
    server.dir, server.port, server.run_as = saved["dir"], saved["port"], saved["run_as"]
    server.stop()
    os.remove(state)


if __name__ == "__main__":
    main()
