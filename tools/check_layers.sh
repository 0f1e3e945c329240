#!/bin/sh
# Checks the layering of doc/DESIGN.md §2: a file under src/<layer>/ may include only headers of
# its own layer or of layers to its left. formats reads and writes the files of r1cs and groth16,
# so it sits right after them.
set -eu
cd "$(dirname "$0")/.."
order="util field curve pairing poly msm r1cs groth16 formats filecoin gpu engine kinds server cli"
rank() {
    i=0
    for l in $order; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}
status=0
for f in $(find src -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort); do
    layer=$(echo "$f" | cut -d/ -f2)
    case "$f" in *_test.c | *_fuzz.c) continue ;; esac # tests may use anything below them
    me=$(rank "$layer")
    for inc in $(sed -n 's/^#include "\([a-z0-9_]*\)\/.*/\1/p' "$f" | sort -u); do
        [ "$inc" = tests ] && continue
        other=$(rank "$inc")
        if [ "$other" -lt 0 ] || [ "$other" -gt "$me" ]; then
            echo "layer violation: $f ($layer) includes $inc/"
            status=1
        fi
    done
done
# poly and msm are peers: neither may include the other.
[ $status -eq 0 ] && echo "layers: ok"
exit $status
