#!/usr/bin/env bash
# The Debian package (issue 30, item 9; cmake/Packaging.cmake): `cpack -G DEB` of this build
# (cpack installs into its own staging folder; it builds nothing), its contents and control
# fields checked with dpkg-deb, its Depends against what dpkg-shlibdeps finds, then unpacked into
# a throwaway root (dpkg-deb -x: never installed, no maintainer script run) and used from there:
# the command's --version, an import, and the Python module reading what the command wrote.
# Usage: deb_test.sh BUILD_DIR WORK_DIR DATA_DIR
set -euo pipefail
build=$(realpath "$1") work=$2 data=$(realpath "$3")
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
fail() { echo "deb: $*" >&2; exit 1; }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/gridstore_*.deb)
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"

# Contents: each part the package promises, under /usr and /etc only, one copy of the module.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$work/contents.txt"
for path in /usr/bin/gridstore /usr/share/man/man1/gridstore.1 \
    /usr/share/bash-completion/completions/gridstore /usr/include/gridstore/version.h \
    /usr/include/gridstore/grid/grid_store.h '/usr/lib/([^/]+/)?libgridstore_grid\.a' \
    '/usr/lib/([^/]+/)?cmake/GridStore/GridStoreConfig\.cmake' \
    '/usr/lib/([^/]+/)?gridstore/libgridstore_rados\.so' \
    /usr/lib/python3/dist-packages/gridstore/__init__.py \
    '/usr/lib/python3/dist-packages/gridstore/_core\.cpython-[^/]+\.so' \
    '/usr/lib/python3/dist-packages/gridstore-[^/]+\.dist-info/entry_points\.txt' \
    /usr/lib/systemd/system/gridstore-serve.service /usr/lib/sysusers.d/gridstore.conf \
    /etc/default/gridstore; do
  grep -Eqx "$path" "$work/contents.txt" || fail "no $path in the package"
done
! grep -Ev '^/(usr|etc)(/|$)' "$work/contents.txt" || fail "files outside /usr and /etc"
! grep -E '^/usr/local/|/python3\.[0-9]+/' "$work/contents.txt" || fail "a /usr/local or second Python copy"

# What only the package installs (component deb) stays out of a plain `cmake --install`, which
# CI runs as root into /usr/local: it must never write /etc or systemd's folders.
cmake --install "$build" --prefix "$work/plain" > /dev/null
plain=$(cd "$work/plain" && find . -path ./etc -o -path '*systemd*' -o -path '*sysusers*' -o -path '*/python3/*')
[ -z "$plain" ] || fail "a plain cmake --install installs $plain"
rm -rf "$work/plain"

# Control: scripts executable and valid sh, the config a conffile.
dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
  test -x "$work/control/$script" && sh -n "$work/control/$script" || fail "bad $script"
done
grep -qx /etc/default/gridstore "$work/control/conffiles" || fail "the config is no conffile"
for field in Package Version Architecture Depends Recommends Suggests; do
  echo "$field: $(dpkg-deb -f "$deb" "$field")"
done

# Depends (listed by hand) names every package dpkg-shlibdeps finds for the command and the
# Python module; what the RADOS plugin adds (librados2) is only suggested.
dpkg-deb -x "$deb" "$work/root"
root=$work/root
names() { sed 's/^shlibs:Depends=//; s/([^)]*)//g; s/|/,/g' | tr ',' '\n' | tr -d ' ' | grep .; }
dpkg-deb -f "$deb" Depends | names | sort -u > "$work/depends.txt"
dpkg-deb -f "$deb" Suggests | names | sort -u > "$work/suggests.txt"
mkdir -p "$work/shlibdeps/debian" && touch "$work/shlibdeps/debian/control"
(cd "$work/shlibdeps" && dpkg-shlibdeps -O "$root/usr/bin/gridstore" \
   "$root"/usr/lib/python3/dist-packages/gridstore/_core*.so) 2> /dev/null | names | sort -u \
  > "$work/needed.txt"
grep -qx libstdc++6 "$work/needed.txt" || fail "dpkg-shlibdeps found too little: $(cat "$work/needed.txt")"
missing=$(comm -23 "$work/needed.txt" "$work/depends.txt")
[ -z "$missing" ] || fail "Depends lacks $missing (cmake/Packaging.cmake)"
plugin=$(find "$root/usr/lib" -name libgridstore_rados.so)
(cd "$work/shlibdeps" && dpkg-shlibdeps -O "$plugin") 2> /dev/null | names | sort -u \
  > "$work/plugin.txt"
missing=$(comm -23 "$work/plugin.txt" <(sort -u "$work/depends.txt" "$work/suggests.txt"))
[ -z "$missing" ] || fail "neither Depends nor Suggests names $missing (the RADOS plugin's)"

# Stripped: no debug sections in the programs, modules or archives (packaging/deb_staging.cmake.in).
for file in "$root/usr/bin/gridstore" "$plugin" "$root"/usr/lib/python3/dist-packages/gridstore/_core*.so \
    $(find "$root/usr/lib" -name '*.a'); do
  ! objdump -h "$file" | grep -q '\.debug_info' || fail "$file has debug sections"
done

# The service: the packaged command, as the packaged user, with the packaged config.
unit=$root/usr/lib/systemd/system/gridstore-serve.service
grep -qx 'ExecStart=/usr/bin/gridstore serve $GRIDSTORE_SERVE_OPTIONS' "$unit" || fail "ExecStart"
# The user as postinst makes it, applied to the throwaway root's own /etc/passwd (--root).
systemd-sysusers --root="$root" gridstore.conf > /dev/null 2>&1
grep -qx 'User=gridstore' "$unit" && grep -q '^gridstore:x:[0-9]*:[0-9]*:[^:]*:/var/lib/gridstore:' \
  "$root/etc/passwd" || fail "the unit's user is not the one sysusers.d makes"
grep -qx 'EnvironmentFile=-/etc/default/gridstore' "$unit" || fail "the unit ignores the config"
# systemd's own check, on a copy that runs the unpacked command: silent when the unit is sound.
mkdir "$work/unit"
sed "s|=/usr/bin/gridstore |=$root/usr/bin/gridstore |" "$unit" > "$work/unit/gridstore-serve.service"
report=$(systemd-analyze verify "$work/unit/gridstore-serve.service" 2>&1) && [ -z "$report" ] ||
  fail "systemd-analyze verify: $report"
# The config's options are ones serve takes (each --name=value checked by serve --help).
options=$(sed -n 's/^GRIDSTORE_SERVE_OPTIONS=//p' "$root/etc/default/gridstore")
for option in $options; do
  "$root/usr/bin/gridstore" serve --help | grep -q -- "${option%%=*} " || fail "serve has no $option"
done

# From the unpacked root: the command (static GridStore, Debian's shared libraries) ...
"$root/usr/bin/gridstore" --version | grep -qx "gridstore $(dpkg-deb -f "$deb" Version)" ||
  fail "--version is not the package's"
for command in "import $data/sub.nc --dataset sub" "info sub"; do
  "$root/usr/bin/gridstore" --store "$work/store" $command > "$work/command.log" 2>&1 ||
    { cat "$work/command.log"; fail "gridstore $command failed"; }
done
bash -c "source '$root/usr/share/bash-completion/completions/gridstore' && complete -p gridstore" \
  > /dev/null || fail "the bash completion defines no completion"
# ... serving as the unit does (its config's options, on a free port instead of 8080) ...
serve_options=$(sed -n 's/^GRIDSTORE_SERVE_OPTIONS=//p' "$root/etc/default/gridstore" |
  sed 's/--listen=[^ ]*/--listen=127.0.0.1:0/')
GRIDSTORE_STORE=$work/store "$root/usr/bin/gridstore" serve $serve_options 2> "$work/serve.log" &
serve_pid=$!
trap 'kill "$serve_pid" 2> /dev/null || true' EXIT
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/serve.log" | head -1)
curl -sfS "$url/collections" | grep -q '"sub"' || { cat "$work/serve.log"; fail "serve"; }
kill -TERM "$serve_pid" && wait "$serve_pid" || fail "serve did not stop cleanly on SIGTERM"
# ... and the Python module, from the root only, reading what the command wrote.
cd "$work"
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONWARNINGS=ignore \
  PYTHONPATH="$root/usr/lib/python3/dist-packages" /usr/bin/python3 - "$root" "$data" <<'PY'
import pathlib, sys
import gridstore
import xarray as xr
root, data = sys.argv[1], pathlib.Path(sys.argv[2])
assert gridstore.__file__.startswith(root), gridstore.__file__
ds = xr.open_dataset("store", engine="gridstore", dataset="sub")
assert sys.modules["gridstore.xarray_backend"].__file__.startswith(root)
xr.testing.assert_identical(ds, xr.open_dataset(data / "sub.nc").assign_attrs())
print("package OK:", gridstore.__version__, gridstore.__file__)
PY
