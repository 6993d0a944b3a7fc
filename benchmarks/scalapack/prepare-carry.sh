#!/usr/bin/env bash
# benchmarks/scalapack/prepare-carry: fills benchmarks/scalapack/carry/ (git-ignored, about 25 MiB) with what run.sh
# needs on a machine that has no ScaLAPACK (and maybe no Open MPI): Debian bookworm's ScaLAPACK for Open MPI and the
# libraries it needs, Debian's Open MPI 4.1.4, and the example built here. Run it on a Debian 12 machine (amd64) that
# has built BUILD/examples/scalapack_pdgemm, then carry the folder with the tree.
#
#   benchmarks/scalapack/prepare-carry.sh [BUILD]      (default: build)
#
# carry/lib           libscalapack-openmpi.so.2.2, libgfortran.so.5, libquadmath.so.0 (first on LD_LIBRARY_PATH)
# carry/fallback-lib  the reference liblapack.so.3 and libblas.so.3, used only where the machine has none (Ubuntu's
#                     OpenBLAS provides both and must stay the CPU BLAS)
# carry/openmpi/usr   Debian's Open MPI (mpirun, libmpi.so.40, its components and help files), used only where the
#                     machine has no mpirun (OPAL_PREFIX points there)
# carry/bin           scalapack_pdgemm, built here against libmpi.so.40 (Open MPI 4.x; Ubuntu 24.04 has 4.1.6)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
example=$build/examples/scalapack_pdgemm
[ -x "$example" ] || {
  echo "prepare-carry: $example is not built (cmake needs MPI and ScaLAPACK: apt-get install openmpi-bin" \
    "libopenmpi-dev libscalapack-openmpi-dev, then cmake --build $build --target scalapack_pdgemm)" >&2
  exit 1
}
carry=$here/carry
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

packages=(libscalapack-openmpi2.2 libgfortran5 libquadmath0 liblapack3 libblas3
  openmpi-bin openmpi-common libopenmpi3 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libpmix2)
(cd "$work" && apt-get download "${packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done
arch_lib=$work/root/usr/lib/x86_64-linux-gnu

rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/lib" "$carry/fallback-lib" "$carry/openmpi"
cp -a "$arch_lib"/libscalapack-openmpi.so.2.2* "$arch_lib"/libgfortran.so.5* "$arch_lib"/libquadmath.so.0* "$carry/lib/"
cp -L "$arch_lib/lapack/liblapack.so.3" "$arch_lib/blas/libblas.so.3" "$carry/fallback-lib/"
# Open MPI keeps its libraries in .../openmpi/lib, linked from the architecture's folder: keep both as Debian has them.
mkdir -p "$carry/openmpi/usr/lib"
cp -a "$work/root/usr/bin" "$work/root/usr/share" "$carry/openmpi/usr/"
cp -a "$arch_lib" "$carry/openmpi/usr/lib/"
rm -rf "$carry/openmpi/usr/share/doc" "$carry/openmpi/usr/share/man" "$carry/openmpi/usr/share/lintian"
rm -f "$carry/openmpi/usr/lib/x86_64-linux-gnu"/libscalapack* "$carry/openmpi/usr/lib/x86_64-linux-gnu"/libgfortran* \
  "$carry/openmpi/usr/lib/x86_64-linux-gnu"/libquadmath*
rm -rf "$carry/openmpi/usr/lib/x86_64-linux-gnu/blas" "$carry/openmpi/usr/lib/x86_64-linux-gnu/lapack"
rm -f "$carry/openmpi/usr/lib/x86_64-linux-gnu"/liboshmem* "$carry/openmpi/usr/lib/x86_64-linux-gnu/openmpi/lib"/liboshmem*
# Debian's absolute links (libmpi.so.40 -> /usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi.so.40...) made relative.
find "$carry/openmpi/usr" -type l | while read -r link; do
  target=$(readlink "$link")
  case $target in /usr/*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$carry/openmpi$target")" "$link" ;; esac
done
# Debian names them through its alternatives (mpirun -> /etc/alternatives/mpirun -> mpirun.openmpi).
ln -sfn mpirun.openmpi "$carry/openmpi/usr/bin/mpirun"
ln -sfn mpiexec.openmpi "$carry/openmpi/usr/bin/mpiexec"
cp "$example" "$carry/bin/"
cat >"$carry/README.txt" <<TEXT
Carried for benchmarks/scalapack/run.sh (made by prepare-carry.sh on $(. /etc/os-release && echo "$PRETTY_NAME"),
$(date -u +%Y-%m-%d)): Debian's ${packages[*]}, and scalapack_pdgemm built against Open MPI $(mpirun --version 2>/dev/null | sed -n '1s/.* //p').
TEXT
du -sh "$carry"
bytes=$(du -sb "$carry" | cut -f1)
[ "$bytes" -lt $((30 * 1024 * 1024)) ] || echo "prepare-carry: $carry is over 30 MiB" >&2
