#!/bin/sh
# SASS instruction counts of the device field products and the G1 mixed addition (sm_90).
#
# Compiles bench/gpu/sass_probe.cu (one operation per step of a loop that is not unrolled) to
# a cubin and prints, per probe kernel, all its instructions and those of the multiply classes:
# IMAD.WIDE (IMAD.WIDE.U32 and .X: one 32x32->64-bit multiply-add), IMAD.HI, and IMAD
# (IMAD, IMAD.X, IMAD.MOV, IMAD.SHL, ...), then IADD3, MOV (register copies) and NOP
# (ptxas's padding).
# With cuobjdump (PATH or $CUDA/bin) the counts come from its -sass listing; without it, from
# the cubin itself: a .text section is the kernel's code, 16 bytes an instruction, and the low
# 9 bits of an instruction are its opcode (0x024 IMAD, 0x025 IMAD.WIDE, 0x027 IMAD.HI,
# 0x010 IADD3, 0x002 MOV, 0x118 NOP on sm_90), the bits above them its operand form.
#
# Needs nvcc only, no GPU. Usage (it runs from the repository root, so paths in the flags are
# relative to that):
#   bench/gpu/sass_count.sh [nvcc flags, placed before -Isrc: e.g. -I DIR with another
#                            gpu/cuda/ff/mont.cuh to compare against]
# Environment: CUDA (default /usr/local/cuda), NVCC, ARCH (default sm_90), KEEP (a directory
# that keeps the cubin, and the listing when cuobjdump made one).
set -eu
cd "$(dirname "$0")/../.."
cuda=${CUDA:-/usr/local/cuda}
nvcc=${NVCC:-$cuda/bin/nvcc}
arch=${ARCH:-sm_90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$nvcc" -std=c++17 -O3 -arch="$arch" -cubin "$@" -Isrc -Iinclude -o "$tmp/probe.cubin" \
    bench/gpu/sass_probe.cu
objdump=
if command -v cuobjdump >/dev/null 2>&1; then
    objdump=cuobjdump
elif [ -x "$cuda/bin/cuobjdump" ]; then
    objdump=$cuda/bin/cuobjdump
fi
printf '%-24s %7s %9s %7s %6s %6s %5s %5s\n' kernel total IMAD.WIDE IMAD.HI IMAD IADD3 MOV NOP
if [ -n "$objdump" ]; then
    "$objdump" -sass "$tmp/probe.cubin" >"$tmp/probe.sass"
    # An instruction line: /*0a40*/ [@P0] OPCODE.MODIFIERS operands ; /* encoding */
    awk '
        function flush() {
            if (fn != "")
                printf "%-24s %7d %9d %7d %6d %6d %5d %5d\n", fn, n, w, h, m, a, v, z
        }
        /Function : / { flush(); fn = $NF; n = w = h = m = a = v = z = 0; next }
        /^[ \t]*\/\*[0-9a-f]+\*\/[ \t]/ {
            op = $2
            if (op ~ /^@/)
                op = $3
            n++
            if (op ~ /^IMAD\.WIDE/) w++
            else if (op ~ /^IMAD\.HI/) h++
            else if (op ~ /^IMAD(\.|$)/) m++
            else if (op ~ /^IADD3(\.|$)/) a++
            else if (op ~ /^MOV(\.|$)/) v++
            else if (op ~ /^NOP/) z++
        }
        END { flush() }' "$tmp/probe.sass" | sort
else
    python3 - "$tmp/probe.cubin" <<'PY' | sort
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff = struct.unpack_from("<Q", d, 0x28)[0]
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
strtab = secs[shstrndx][4]
for s in secs:
    name = d[strtab + s[0]:d.index(b"\0", strtab + s[0])].decode()
    if not name.startswith(".text."):
        continue
    ops = [struct.unpack_from("<Q", d, s[4] + i)[0] & 0x1FF for i in range(0, s[5], 16)]
    c = lambda o: sum(1 for x in ops if x == o)
    print("%-24s %7d %9d %7d %6d %6d %5d %5d"
          % (name[6:], len(ops), c(0x025), c(0x027), c(0x024), c(0x010), c(0x002), c(0x118)))
PY
fi
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    cp "$tmp"/probe.* "$KEEP"/
fi
