#!/bin/sh
# The fast kernel's x86 builds are what simd_path() calls them, under the compiler that built
# them: the functions of namespace avx512 use zmm registers, those of avx2 ymm and no zmm, those
# of baseline neither. (clang once ignored the GCC-only target pragma and built "avx512" as SSE.)
# The builds are one object each (emu/core/fast_kernel_{avx512,avx2,baseline}.cpp): give the
# library's archive, or the three objects.
#   tests/simd/check_zmm.sh OBJDUMP ARCHIVE_OR_OBJECT...   (ctest: FastKernel.simd_builds_use_their_registers)
set -eu
objdump=$1
shift
[ $# -gt 0 ] || { echo "usage: check_zmm.sh OBJDUMP ARCHIVE_OR_OBJECT..." >&2; exit 2; }
file="$*"
dump="${TMPDIR:-/tmp}/check_zmm.$$"
: > "$dump"
for f in "$@"; do
  [ -r "$f" ] || { echo "check_zmm: cannot read $f" >&2; rm -f "$dump"; exit 2; }
  "$objdump" -d --no-show-raw-insn "$f" >> "$dump" ||
    { echo "check_zmm: $objdump -d $f failed" >&2; rm -f "$dump"; exit 2; }
done
# Count per namespace (mangled as 6avx512, 4avx2, 8baseline inside tcnum::detail's anonymous
# namespace) the instructions that name a zmm or a ymm register.
counts=$(awk '
  /^[0-9a-f]+ <.*>:$/ { ns = ""
    if ($2 ~ /_GLOBAL__N_16avx512/) ns = "avx512"; else if ($2 ~ /_GLOBAL__N_14avx2/) ns = "avx2"
    else if ($2 ~ /_GLOBAL__N_18baseline/) ns = "baseline"
    if (ns != "") fns[ns]++
    next }
  ns != "" && /%zmm/ { zmm[ns]++ }
  ns != "" && /%ymm/ { ymm[ns]++ }
  END { for (n in fns) printf "%s %d %d %d\n", n, fns[n], zmm[n], ymm[n] }' "$dump")
rm -f "$dump"
echo "namespace functions zmm-instructions ymm-instructions:"
echo "$counts"
status=0
check() {  # namespace, test on (functions zmm ymm), what it means
  line=$(echo "$counts" | awk -v n="$1" '$1 == n')
  if [ -z "$line" ]; then echo "check_zmm: no function of namespace $1 in $file" >&2; status=1; return; fi
  set -- $line "$2" "$3"
  if ! awk -v f="$2" -v z="$3" -v y="$4" "BEGIN { exit !($5) }"; then echo "check_zmm: $1: $6" >&2; status=1; fi
}
check avx512 "z > 0" "no zmm instruction: the AVX-512 build is not AVX-512 code"
check avx2 "y > 0 && z == 0" "the AVX2 build must use ymm and no zmm"
check baseline "y == 0 && z == 0" "the baseline (SSE2) build must use neither ymm nor zmm"
[ $status -eq 0 ] && echo "check_zmm: every build uses its own registers"
exit $status
