#!/usr/bin/env bash
# Makes the files the container image holds besides the application (which Jib adds itself):
# a Java runtime cut with jlink from the build's JDK, the shared libraries it and ONNX Runtime
# load (found with ldd on this machine), ONNX Runtime's native libraries taken out of its jar,
# a passwd file with the non-root user, and the empty folders the sidecar writes to.
# Run by the image profile of sidecar/pom.xml (mvn -B -pl sidecar -am package -Pimage):
#   rootfs.sh JAVA_SETTINGS ONNXRUNTIME_JAR MODULES OUT
# JAVA_SETTINGS: the output of `java -XshowSettings:properties -version` of the toolchain JDK
# (how the build tells this script which JDK it chose); ONNXRUNTIME_JAR: its path, or anything
# that is not a file for a slim build; MODULES: the jlink module list; OUT: the folder to make.
set -euo pipefail
settings=${1:?usage: rootfs.sh JAVA_SETTINGS ONNXRUNTIME_JAR MODULES OUT}
ort_jar=${2:?}
modules=${3:?}
out=${4:?}
uid=65532

[ "$(uname -s)" = Linux ] || { echo "rootfs.sh: the image is built on Linux (glibc) only" >&2; exit 1; }
java_home=$(sed -n 's/^ *java\.home = //p' "$settings" | head -n1)
[ -x "$java_home/bin/jlink" ] || { echo "rootfs.sh: no jlink in '$java_home' (from $settings)" >&2; exit 1; }
case "$(uname -m)" in
  x86_64) ort_arch=linux-x64 ;;
  aarch64) ort_arch=linux-aarch64 ;;
  *) echo "rootfs.sh: no ONNX Runtime build for $(uname -m)" >&2; exit 1 ;;
esac

rm -rf "$out"
root="$out/rootfs"
mkdir -p "$root/etc" "$root/opt/memsidecar" "$root/data" "$root/tmp" "$root/workspace"

# The runtime: only the modules the sidecar uses (jdeps on the jar; jdk.incubator.vector for
# MEMSIDECAR_VECTOR_API-like use through JDK_JAVA_OPTIONS), no debug symbols, and the JDK's
# default class-data archive for these modules (faster start).
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=zip-6 --generate-cds-archive --output "$root/opt/java"

# ONNX Runtime's native libraries, loaded from here (MEMSIDECAR_NATIVE_DIR) instead of being
# copied out of the jar into /tmp at every start: a read-only root file system works.
native="$root/opt/memsidecar/native"
if [ -f "$ort_jar" ]; then
  mkdir -p "$native"
  unzip -q -j -o "$ort_jar" "ai/onnxruntime/native/$ort_arch/*" -d "$native"
fi

# The shared libraries of every native library in the image, as ldd finds them here: glibc,
# libstdc++, libgcc_s, libz, ... Copied (not linked) to the path ldd names.
# AWT's X11 (and jawt), sound and splash-screen libraries are left out: a headless server never
# loads them.
libs=$(find "$root/opt" -type f \( -name '*.so' -o -name '*.so.*' -o -path '*/bin/*' \) \
  ! -name libawt_xawt.so ! -name libjawt.so ! -name libjsound.so ! -name libsplashscreen.so)
# libjvm.so is found by the launcher, libonnxruntime.so.1 is libonnxruntime.so (ONNX Runtime
# loads it first, under that name): the search path stands for both.
export LD_LIBRARY_PATH="$root/opt/java/lib/server:$root/opt/java/lib"
for f in $libs; do ldd "$f" 2>/dev/null | sed "s|^|$f: |" || true; done > "$out/ldd.txt"
if grep 'not found' "$out/ldd.txt" | grep -v 'libonnxruntime\.so\.1 => not found' >&2; then
  echo "rootfs.sh: the libraries above are not installed on this machine" >&2
  exit 1
fi
sed -n -e 's|.*=> \(/[^ ]*\) .*|\1|p' -e 's|^[^ ]*:[[:space:]]*\(/[^ ]*\) .*|\1|p' "$out/ldd.txt" | sort -u > "$out/libs.txt"
# The C library loads these by name, not through ldd's list: users and hosts from /etc files.
libc_dir=$(dirname "$(grep -m1 '/libc\.so\.6$' "$out/libs.txt")")
for extra in libnss_files.so.2 libnss_dns.so.2; do
  if [ -f "$libc_dir/$extra" ]; then echo "$libc_dir/$extra" >> "$out/libs.txt"; fi
done
# The image's own libraries are found through their RUNPATH; keep only the system ones.
grep -v "^$root/" "$out/libs.txt" | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

cat > "$root/etc/passwd" <<EOF
root:x:0:0:root:/root:/sbin/nologin
memsidecar:x:$uid:$uid:memsidecar:/data:/sbin/nologin
EOF
cat > "$root/etc/group" <<EOF
root:x:0:
memsidecar:x:$uid:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$root/etc/nsswitch.conf"
echo "rootfs.sh: $(du -sh "$root" | cut -f1) in $root ($(wc -l < "$out/libs.txt") system libraries)"
