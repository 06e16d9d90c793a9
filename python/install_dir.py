"""Prints where the package goes under an install prefix: the interpreter's platform library
folder, named dist-packages on Debian (whose python3 searches /usr/local/lib/python3.X/dist-packages,
not site-packages). Usage: python3 install_dir.py PREFIX"""
import sys
import sysconfig

prefix = sys.argv[1]
path = sysconfig.get_path("platlib", "posix_prefix", {"base": prefix, "platbase": prefix})
if "deb_system" in sysconfig.get_scheme_names():
    path = path.replace("site-packages", "dist-packages")
print(path)
