"""A throwaway single-node Slurm cluster (munged, slurmctld, slurmd from Debian's slurm-wlm and
munge) configured in a temporary folder with its own key, ports and state: no system service or
file outside the folder is touched. Needs root (slurmd starts jobs as their users); available()
says whether this machine can run it.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time


def available():
    if os.getuid() != 0:
        return "not root (slurmd must run as root)"
    for tool in ("munged", "slurmctld", "slurmd", "sbatch", "sinfo"):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
            return f"{tool} not installed (apt install slurm-wlm munge)"
    return ""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tool(name):
    return shutil.which(name) or "/usr/sbin/" + name


class SlurmCluster:
    def __init__(self, cpus=2):
        self.dir = tempfile.mkdtemp(prefix="infergap-slurm-")
        self.cpus = cpus
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def _path(self, *parts):
        return os.path.join(self.dir, *parts)

    def start(self, timeout=60):
        for sub in ("munge", "state", "spool", "log"):
            os.makedirs(self._path(sub))
        os.chmod(self._path("munge"), 0o700)
        with open(self._path("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self._path("munge", "munge.key"), 0o400)
        sock = self._path("munge", "sock")
        subprocess.run([_tool("munged"), "--force", "--socket=" + sock,
                        "--key-file=" + self._path("munge", "munge.key"),
                        "--log-file=" + self._path("munge", "log"),
                        "--pid-file=" + self._path("munge", "pid"),
                        "--seed-file=" + self._path("munge", "seed")], check=True)
        host = socket.gethostname()
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=infergaptest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={self._path("state")}
SlurmdSpoolDir={self._path("spool")}
SlurmctldPidFile={self._path("slurmctld.pid")}
SlurmdPidFile={self._path("slurmd.pid")}
SlurmctldLogFile={self._path("log", "slurmctld.log")}
SlurmdLogFile={self._path("log", "slurmd.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName={host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
""")
        subprocess.run([_tool("slurmctld"), "-f", self.conf], check=True, env=self.env)
        subprocess.run([_tool("slurmd"), "-f", self.conf], check=True, env=self.env)
        end = time.time() + timeout
        while time.time() < end:
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True,
                               env=self.env)
            if r.returncode == 0 and r.stdout.strip() == "idle":
                return self
            time.sleep(0.5)
        self.stop()
        raise RuntimeError("single-node Slurm did not come up: " + self.logs())

    def logs(self):
        out = []
        for name in ("slurmctld.log", "slurmd.log"):
            try:
                with open(self._path("log", name)) as f:
                    out.append(name + ": " + f.read()[-1500:])
            except OSError:
                pass
        return "\n".join(out)

    def sbatch(self, args, **kw):
        return subprocess.run(["sbatch"] + args, capture_output=True, text=True,
                              env=dict(self.env, **kw.pop("env", {})), **kw)

    def stop(self):
        subprocess.run(["scontrol", "shutdown"], env=self.env, capture_output=True)
        for pidfile in ("slurmd.pid", "slurmctld.pid", os.path.join("munge", "pid")):
            try:
                with open(self._path(pidfile)) as f:
                    os.kill(int(f.read().strip()), 15)
            except (OSError, ValueError):
                pass
        time.sleep(0.5)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
