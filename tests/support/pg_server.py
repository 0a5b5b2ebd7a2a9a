"""A throwaway PostgreSQL server for the fleet tests and benchmarks.

Debian's `postgresql` package, initialised in a temporary folder, listening on a Unix socket only,
run as an unprivileged user ('nobody' when we are root: PostgreSQL refuses to run as root), with
password (SCRAM) authentication so that credentials are really checked. No system service is
touched; stop() removes everything.
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile

USER = "infergap"
PASSWORD = "s3cret-pw"


def _bin(name):
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not dirs:
        raise RuntimeError("PostgreSQL server binaries not found (apt install postgresql)")
    return os.path.join(dirs[-1], name)


class PgServer:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="infergap-pg-")
        os.chmod(self.dir, 0o755)
        self.run_as = []
        if os.getuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
            self.run_as = ["runuser", "-u", "nobody", "--"]
        with socket.socket() as s:  # a free number names the socket file .s.PGSQL.<port>
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def _server(self, args):
        subprocess.run(self.run_as + args, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd=self.dir)

    def start(self):
        pwfile = os.path.join(self.dir, "pw")
        with open(pwfile, "w") as f:
            f.write(PASSWORD + "\n")
        os.chmod(pwfile, 0o644)
        data = os.path.join(self.dir, "data")
        self._server([_bin("initdb"), "-D", data, "-U", USER, "--auth=scram-sha-256",
                      "--pwfile=" + pwfile, "-E", "UTF8", "--no-sync"])
        options = (f"-k {self.dir} -c listen_addresses='' -p {self.port} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=50")
        self._server([_bin("pg_ctl"), "-D", data, "-l", os.path.join(self.dir, "log"), "-w",
                      "-o", options, "start"])
        return self

    def url(self, db="postgres", password=PASSWORD):
        return f"postgresql://{USER}:{password}@/{db}?host={self.dir}&port={self.port}"

    def _client_env(self):
        return dict(os.environ, PGPASSWORD=PASSWORD)

    def createdb(self, name):
        subprocess.run([_bin("createdb"), "-h", self.dir, "-p", str(self.port), "-U", USER, name],
                       check=True, env=self._client_env())
        return self.url(name)

    def psql(self, db, sql):
        r = subprocess.run([_bin("psql"), "-h", self.dir, "-p", str(self.port), "-U", USER, "-d",
                            db, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                           check=True, env=self._client_env(), capture_output=True, text=True)
        return r.stdout.strip()

    def stop(self):
        try:
            self._server([_bin("pg_ctl"), "-D", os.path.join(self.dir, "data"), "-m",
                          "immediate", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
