"""Prints the host fingerprint that BENCHMARKS.md states: CPU, cores, memory, load, kernel, build."""
import json
import os
import platform
import subprocess


def cpuinfo(key):
    for line in open("/proc/cpuinfo"):
        if line.startswith(key):
            return line.split(":", 1)[1].strip()
    return "?"


def fork_ms(n=200):
    """Median ms of fork + exit + wait of this small process: a host where it is slow makes any
    per-model process costly (issue [Throughput])."""
    import time
    times = []
    for _ in range(n):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        times.append(time.perf_counter() - t)
    return round(sorted(times)[n // 2] * 1e3, 3)


flags = cpuinfo("flags").split()
mem = next(l for l in open("/proc/meminfo") if l.startswith("MemTotal")).split()[1]
git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                       capture_output=True, text=True).stdout.strip()
print(json.dumps({
    "cpu": cpuinfo("model name"),
    "cores": os.cpu_count(),
    "isa": [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
            if f in flags],
    "mem_gib": round(int(mem) / 2**20, 1),
    "kernel": platform.release(),
    "loadavg": os.getloadavg(),
    "fork_ms": fork_ms(),
    "commit": git.stdout.strip() + ("+dirty" if dirty else ""),
}))
