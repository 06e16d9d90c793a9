"""Prints where the package goes, relative to the install prefix: the interpreter's platform
library folder, named dist-packages on Debian (whose python3 searches
/usr/local/lib/python3.X/dist-packages, not site-packages). Usage: python3 install_dir.py"""
import sysconfig

path = sysconfig.get_path("platlib", "posix_prefix", {"base": "/", "platbase": "/"})
if "deb_system" in sysconfig.get_scheme_names():
    path = path.replace("site-packages", "dist-packages")
print(path.lstrip("/"))
