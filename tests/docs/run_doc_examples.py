#!/usr/bin/env python3
"""Runs the examples in README.md and docs/*.md, so the docs cannot rot (ctest label `docs`).

An example is a fenced code block whose info string is `sh example`, optionally followed by
`requires=NAME[,NAME...]`: each NAME is a program that must be on PATH, an absolute path that
must exist, or `root` (the examples must run as root). An example whose requirement is missing is
skipped with the reason; every other example must exit 0.

The examples of one page run in order, each in its own bash (`set -eo pipefail`), all in one fresh
temporary folder, so a page's later examples use what its earlier ones made (a model, a store).
PATH starts with the folder holding `infergap` and `infergap-worker`; INFERGAP_REPO is the
repository root, for examples that call its scripts. Exit 1 when an example fails or none is found.

Links are checked too: every relative Markdown link of those pages must name a file that exists,
and a `#fragment` a heading of the page it points to (GitHub's heading anchors).

`--self-test` checks the parsing and the verdicts on sample pages instead (no infergap needed).
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^```(.*)$")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
EXAMPLE = re.compile(r"^sh\s+example(?:\s+requires=(\S+))?\s*$")


def examples(text):
    """(line number of the fence, requirements, script) for each example block of a page."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        info, start, body = m.group(1).strip(), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"line {start}: code block not closed")
        i += 1
        e = EXAMPLE.match(info)
        if e:
            needs = e.group(1).split(",") if e.group(1) else []
            out.append((start, needs, "\n".join(body) + "\n"))
    return out


def anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def prose(text):
    """The page's lines outside fenced code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def broken_links(page, text):
    """The relative links of a page that name a missing file or heading, as messages."""
    out = []
    for number, line in enumerate(prose(text), 1):
        if line.startswith("    "):  # an indented code block
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                out.append(f"link to {target}: no file {dest}")
            elif fragment and dest.suffix == ".md":
                anchors = {anchor(m.group(1)) for m in map(HEADING.match, prose(dest.read_text()))
                           if m}
                if fragment not in anchors:
                    out.append(f"link to {target}: no heading with anchor #{fragment}")
    return out


def missing(needs, path_env):
    """The first requirement this machine lacks, or None."""
    for n in needs:
        if n == "root":
            if os.geteuid() != 0:
                return "needs root"
        elif n.startswith("/"):
            if not os.path.exists(n):
                return f"needs {n}"
        elif shutil.which(n, path=path_env) is None:
            return f"needs {n} on PATH"
    return None


def run_page(page, text, bin_dir, repo, timeout, log):
    """Runs a page's examples in one temporary folder; returns (passed, skipped, failed)."""
    passed = skipped = failed = 0
    env = dict(os.environ)
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")
    env["INFERGAP_REPO"] = str(repo)
    with tempfile.TemporaryDirectory(prefix="infergap-doc-") as work:
        for line, needs, script in examples(text):
            where = f"{page}:{line}"
            why = missing(needs, env["PATH"])
            if why:
                log(f"SKIP {where}: {why}")
                skipped += 1
                continue
            t0 = time.monotonic()
            try:
                r = subprocess.run(["bash", "-c", "set -eo pipefail\n" + script], cwd=work,
                                   env=env, capture_output=True, text=True, timeout=timeout)
                rc, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = "timeout", e.stdout or "", f"timed out after {timeout} s"
                out = out.decode() if isinstance(out, bytes) else out
            secs = time.monotonic() - t0
            if rc == 0:
                log(f"PASS {where} ({secs:.1f} s)")
                passed += 1
            else:
                log(f"FAIL {where} ({secs:.1f} s): exit {rc}\n--- script\n{script}"
                    f"--- stdout (tail)\n{out[-3000:]}\n--- stderr (tail)\n{err[-3000:]}")
                failed += 1
    return passed, skipped, failed


def pages(repo):
    return [repo / "README.md"] + sorted((repo / "docs").glob("*.md"))


def self_test():
    sample = ("text\n```sh example\ntrue\necho made > f\n```\n```sh\nfalse\n```\n"
              "```sh example\ntest -s f\n```\n```sh example requires=no-such-program-xyz\nfalse\n```\n"
              "```sh example\nfalse\n```\n")
    found = examples(sample)
    assert [n for n, _, _ in found] == [2, 9, 12, 15], found
    assert found[2][1] == ["no-such-program-xyz"], found[2]
    logged = []
    result = run_page("sample.md", sample, pathlib.Path("/nonexistent"), pathlib.Path("."), 30,
                      logged.append)
    # The second example sees the first one's file; the unmarked `false` never runs.
    assert result == (2, 1, 1), (result, logged)
    assert logged[2].startswith("SKIP sample.md:12: needs no-such-program-xyz"), logged
    assert logged[3].startswith("FAIL sample.md:15"), logged
    assert anchor("Inputs as users have them: open dims, `inspect`") == \
        "inputs-as-users-have-them-open-dims-inspect"
    with tempfile.TemporaryDirectory() as d:
        page = pathlib.Path(d) / "a.md"
        (pathlib.Path(d) / "b.md").write_text("# B\n## Some part: `x`\n")
        page.write_text("[ok](b.md#some-part-x) [web](https://x.org) [self](#a)\n# A\n"
                        "[gone](c.md) [bad](b.md#nope)\n```\n[in code](d.md)\n```\n")
        found = broken_links(page, page.read_text())
        assert len(found) == 2 and "c.md" in found[0] and "#nope" in found[1], found
    try:
        examples("```sh example\ntrue\n")
        raise AssertionError("an unclosed block must be an error")
    except ValueError as e:
        assert "line 1" in str(e)
    print("run_doc_examples --self-test: ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", help="folder holding infergap and infergap-worker")
    ap.add_argument("--repo", default=str(pathlib.Path(__file__).resolve().parents[2]))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per example")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("page", nargs="*", help="pages to run (default: README.md and docs/*.md)")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.bin or not (pathlib.Path(a.bin) / "infergap").exists():
        print("run_doc_examples: --bin must name the folder holding infergap", file=sys.stderr)
        return 2
    repo = pathlib.Path(a.repo)
    totals = [0, 0, 0]
    t0 = time.monotonic()
    for page in [pathlib.Path(p).resolve() for p in a.page] or pages(repo):
        text = page.read_text()
        name = page.relative_to(repo) if page.is_relative_to(repo) else page
        for problem in broken_links(page, text):
            print(f"FAIL {name}: {problem}")
            totals[2] += 1
        try:
            examples(text)
        except ValueError as e:
            print(f"FAIL {page}: {e}")
            totals[2] += 1
            continue
        r = run_page(name, text, pathlib.Path(a.bin).resolve(), repo, a.timeout,
                     lambda s: print(s, flush=True))
        totals = [x + y for x, y in zip(totals, r)]
    print(f"doc examples: {totals[0]} passed, {totals[1]} skipped, {totals[2]} failed "
          f"in {time.monotonic() - t0:.0f} s")
    if totals[0] + totals[2] == 0:
        print("run_doc_examples: no example ran", file=sys.stderr)
        return 1
    return 1 if totals[2] else 0


if __name__ == "__main__":
    sys.exit(main())
