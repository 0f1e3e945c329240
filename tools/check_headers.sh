#!/bin/sh
# Every header compiles on its own (doc/DESIGN.md §2): one translation unit per header.
set -eu
cc=${1:-cc}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for h in $(find src include -name '*.h' ! -name '*_tests.h' | sort); do
    rel=${h#src/}
    rel=${rel#include/}
    printf '#include "%s"\n' "$rel" >"$tmp/t.c"
    if ! "$cc" -std=gnu17 -Wall -Wextra -Werror -Isrc -Iinclude -I. -fsyntax-only "$tmp/t.c" 2>"$tmp/err"; then
        echo "header does not compile alone: $h"
        cat "$tmp/err"
        status=1
    fi
done
# The public headers stand alone for clients too: only -Iinclude, no path into src/.
for h in $(find include -name '*.h' | sort); do
    printf '#include "%s"\n' "${h#include/}" >"$tmp/t.c"
    if ! "$cc" -std=gnu17 -Wall -Wextra -Werror -Iinclude -fsyntax-only "$tmp/t.c" 2>"$tmp/err"; then
        echo "public header needs more than -Iinclude: $h"
        cat "$tmp/err"
        status=1
    fi
done
[ $status -eq 0 ] && echo "headers: all compile standalone"
exit $status
