#!/bin/sh
# Stages a relocatable bundle of the GPU tools for a host that has a driver but no compiler,
# no MPFR and no network: numprobe and tcnum_probe_selfcheck from a CUDA build, the shared
# libraries they need beyond glibc and the driver (copied beside them, found through
# $ORIGIN-relative LD_LIBRARY_PATH in the wrapper), the built-in sm_90 model, and a note of the
# minimums the target must meet. Usage:
#   tools/make_gpu_bundle.sh BUILD_DIR OUT_DIR
# with BUILD_DIR configured with -DTCNUM_CUDA=ON (MPFR optional: -DTCNUM_WITH_MPFR=OFF builds
# replay, list, fuzz and the self-check; with MPFR also record/check/fit).
set -eu
build=$1 out=$2
# docs/probes.md's GPU-host steps run both: the self-check first, then numprobe.
for exe in tools/numprobe probes/tcnum_probe_selfcheck; do
  test -x "$build/$exe" || { echo "no $build/$exe: configure with -DTCNUM_CUDA=ON and build the numprobe and tcnum_probe_selfcheck targets first" >&2; exit 2; }
done
mkdir -p "$out/bin" "$out/lib"
cp "$build/tools/numprobe" "$build/probes/tcnum_probe_selfcheck" "$out/bin/"
# Shared libraries other than glibc's own and the driver's (libcuda comes from the target's driver;
# the CUDA runtime is linked statically).
for exe in "$out"/bin/*; do
  ldd "$exe" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libcuda.so*|libnvidia-*) ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
done
"$build/tools/numprobe" list --arch sm_90 --print-model > "$out/sm_90.json"
# One wrapper per executable, beside bin/: ./numprobe and ./tcnum_probe_selfcheck.
for exe in numprobe tcnum_probe_selfcheck; do
  cat > "$out/$exe" <<SH
#!/bin/sh
here=\$(cd "\$(dirname "\$0")" && pwd)
LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/bin/$exe" "\$@"
SH
  chmod +x "$out/$exe"
done
glibc=$(objdump -T "$out"/bin/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -t. -k2,2n -k3,3n -u | tail -1)
cuda=$(sed -n 's/^set(CMAKE_CUDA_COMPILER_VERSION "\(.*\)")/\1/p' "$build"/CMakeFiles/*/CMakeCUDACompiler.cmake 2>/dev/null | head -1)
cat > "$out/README" <<NOTE
tcnum GPU bundle: run ./tcnum_probe_selfcheck (every line must say PASS), then ./numprobe
(wrappers that add lib/ to the library path). ./numprobe --version names the build.
Target minimums: x86-64 Linux with glibc >= ${glibc#GLIBC_} (the newest symbol version the binaries use),
an NVIDIA driver that supports the CUDA ${cuda:-toolkit} runtime the probes were built with (the runtime
is static; the driver's libcuda.so is used), and a GPU whose arch the probes were compiled for.
Self-check verdicts are cached in \$TCNUM_SELF_CHECK_CACHE or ~/.cache/tcnum/self-check.
NOTE
echo "bundle in $out: $(ls "$out/bin" | tr '\n' ' ')(+ $(ls "$out/lib" | wc -l) libraries); $(sed -n 4p "$out/README")"
