#!/bin/sh
# Fails with the diff when a C/CUDA source is not clang-formatted (config: .clang-format).
set -eu
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format}
status=0
for f in $(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find src tests bench include -name '*.[ch]'); do
    case "$f" in *_tests.h | tests/test_list.h) continue ;; esac # X-macro lists, one entry a line
    [ -f "$f" ] || continue # deleted in the working tree, not yet in the index
    if ! "$fmt" --style=file "$f" | diff -u "$f" - >/dev/null; then
        echo "not formatted: $f"
        "$fmt" --style=file "$f" | diff -u "$f" - | head -40 || true
        status=1
    fi
done
[ $status -eq 0 ] && echo "clang-format: all sources formatted"
exit $status
