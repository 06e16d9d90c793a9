# Copyright 2026 The GridStore Authors.
#
# setuptools driving CMake (pyproject.toml; why not scikit-build: docs/design/packaging.md). The
# extension module gridstore._core is built by the project's CMake build and installed (component
# python, stripped) into a staging folder, from which it is copied into the wheel. With
# $GRIDSTORE_CMAKE_BUILD_DIR naming a configured build folder (CI: build/), that build is reused:
# only the python target is brought up to date. Otherwise the project is configured and built in
# a temporary folder, without tests, tools or samples (what a user gets).
import glob
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = pathlib.Path(__file__).resolve().parent.parent  # the repository


def project_version():
    cmake_lists = SOURCE / "CMakeLists.txt"
    if not cmake_lists.is_file():  # e.g. a wheel built from an sdist, which holds only python/
        sys.exit("gridstore: build the wheel from the source tree: "
                 "python3 -m build --wheel --no-isolation python")
    match = re.search(r"project\(GridStore VERSION ([0-9.]+)", cmake_lists.read_text())
    return match.group(1)


def run(*command):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run(list(map(str, command)), check=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        jobs = str(os.cpu_count() or 1)
        with tempfile.TemporaryDirectory(prefix="gridstore-wheel-") as tmp:
            build_dir = os.environ.get("GRIDSTORE_CMAKE_BUILD_DIR")
            if not build_dir:
                build_dir = os.path.join(tmp, "build")
                generator = ["-G", "Ninja"] if shutil.which("ninja") else []
                run("cmake", "-S", SOURCE, "-B", build_dir, *generator,
                    "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_UNITY_BUILD=ON",  # scripts/build.sh
                    f"-DPython_EXECUTABLE={sys.executable}",
                    "-DGRIDSTORE_BUILD_PYTHON=ON", "-DGRIDSTORE_BUILD_TESTS=OFF",
                    "-DGRIDSTORE_BUILD_TOOLS=OFF", "-DGRIDSTORE_BUILD_SERVER=OFF",
                    "-DGRIDSTORE_BUILD_SAMPLES=OFF")
            run("cmake", "--build", build_dir, "--target", "gridstore_python", "-j", jobs)
            stage = os.path.join(tmp, "stage")
            run("cmake", "--install", build_dir, "--component", "python", "--prefix", stage,
                "--strip")
            modules = glob.glob(os.path.join(stage, "**", "gridstore", "_core*.so"),
                                recursive=True)
            if len(modules) != 1:
                sys.exit(f"gridstore: expected one _core module under {stage}, found {modules}")
            # A reused build made for another interpreter would give a module this one cannot
            # import: refuse rather than rename it.
            suffix = sysconfig.get_config_var("EXT_SUFFIX")
            if not modules[0].endswith(suffix):
                sys.exit(f"gridstore: {modules[0]} was built for another Python than "
                         f"{sys.executable} (expects *{suffix}): reconfigure {build_dir} with "
                         f"-DPython_EXECUTABLE={sys.executable}")
            target = self.get_ext_fullpath(ext.name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(modules[0], target)


setup(version=project_version(),
      ext_modules=[Extension("gridstore._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
