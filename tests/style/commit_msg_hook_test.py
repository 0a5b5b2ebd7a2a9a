#!/usr/bin/env python3
"""ctest style.commit_msg_hook: scripts/commit-msg accepts and rejects sample messages, and rejects
a bad commit when installed as a hook in a scratch repository."""
import os
import pathlib
import subprocess
import sys
import tempfile

HOOK = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "commit-msg"
SCISSORS = "# ------------------------ >8 ------------------------"

# (name, message, expected exit code, text the error must contain)
CASES = [
    ("good", "Add the thing\n\nThe why.\n", 0, ""),
    ("subject only", "Add the thing\n", 0, ""),
    ("72-character subject", "x" * 72 + "\n\nbody\n", 0, ""),
    ("72 characters, not bytes", "é" * 72 + "\n", 0, ""),
    ("73-character subject", "x" * 73 + "\n\nbody\n", 1, "73 characters, more than 72"),
    ("missing blank line", "Add the thing\nThe why.\n", 1, "second line is not blank"),
    ("empty", "", 1, "subject line is empty"),
    ("only comments", "\n# Please enter the commit message\n#\n", 1, "subject line is empty"),
    ("comments ignored", "# a comment\nAdd the thing\n# " + "y" * 80 + "\n\nThe why.\n", 0, ""),
    ("below the scissors ignored", f"Add the thing\n{SCISSORS}\ndiff --git a/x b/x\n", 0, ""),
    ("fixup!", "fixup! " + "x" * 72 + "\n", 0, ""),
    ("squash!", "squash! " + "x" * 72 + "\nno blank line\n", 0, ""),
    ("Merge", "Merge branch 'a-long-topic-branch-name' of https://example.org/some/long/path.git\n",
     0, ""),
]


def run_hook(message, tmp):
    path = pathlib.Path(tmp) / "MSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run([str(HOOK), str(path)], capture_output=True, text=True, cwd=tmp)


def main():
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, message, want, text in CASES:
            r = run_hook(message, tmp)
            if r.returncode != want or text not in r.stderr:
                failed.append(f"{name}: exit {r.returncode} (want {want}), stderr {r.stderr!r}")

        # As a hook: git runs it and refuses the commit.
        env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
        repo = pathlib.Path(tmp) / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
        hooks = repo / ".git" / "hooks"
        hooks.mkdir(exist_ok=True)
        (hooks / "commit-msg").symlink_to(HOOK)
        for message, want in (("x" * 73, 1), ("Add the thing\n\nThe why.", 0)):
            r = subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", message], cwd=repo,
                               capture_output=True, text=True, env=env)
            if (r.returncode != 0) != bool(want):
                failed.append(f"git commit -m {message!r}: exit {r.returncode}, {r.stderr!r}")
        log = subprocess.run(["git", "log", "--format=%s"], cwd=repo, capture_output=True,
                             text=True, env=env).stdout.split("\n")
        if log[0] != "Add the thing" or len([s for s in log if s]) != 1:
            failed.append(f"scratch repository log {log!r}, want only 'Add the thing'")

    for f in failed:
        print(f"FAILED {f}")
    print(f"commit_msg_hook_test: {len(CASES) + 3 - len(failed)} of {len(CASES) + 3} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
