"""`pip install .`: builds infergap._core, the worker and the CLI with CMake (Release, ninja when
present) in build/ (or build/pip/ when the clone has no build) and puts them into the package beside the .py files (docs/PYTHON.md)."""
import os
import pathlib
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        # The clone's own build (scripts/build) when there is one, else a build of its own.
        default = ROOT / "build" if (ROOT / "build" / "CMakeCache.txt").exists() else \
            ROOT / "build" / "pip"
        build = pathlib.Path(os.environ.get("INFERGAP_PIP_BUILD", default))
        if not (build / "CMakeCache.txt").exists():
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), *generator,
                                   "-DCMAKE_BUILD_TYPE=Release", "-DINFERGAP_BUILD_TESTS=OFF",
                                   "-DINFERGAP_BUILD_BENCH=OFF", "-DINFERGAP_FUZZ=OFF"])
        jobs = os.environ.get("JOBS", "2")
        subprocess.check_call(["cmake", "--build", str(build), "-j", jobs, "--target",
                               "infergap_python"])
        built = build / "python" / "infergap"
        if not (built / "infergap-worker").exists():
            raise RuntimeError(f"{built}: no infergap-worker; is pybind11-dev installed "
                               "(scripts/setup)?")
        target = pathlib.Path(self.build_lib) / "infergap"
        target.mkdir(parents=True, exist_ok=True)
        for f in built.iterdir():
            if f.name.startswith("_core") or f.name in ("infergap-worker", "infergap"):
                shutil.copy2(f.resolve(), target / f.name)
        # Backend modules the worker loads from its own folder (the torch platform).
        for module in build.glob("libinfergap_*.so"):
            shutil.copy2(module, target / module.name)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution)
