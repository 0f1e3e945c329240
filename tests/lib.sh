# Helpers the integration scripts share (tests/interop/run.sh, tests/filecoin/run.sh). POSIX
# sh; a script sources it with `. "$(dirname "$0")/../lib.sh"` and sets w, its scratch
# directory, before it calls them. Output of a command run under capture or expect goes to
# $w/out and its stderr to $w/err, or with lib_merge_stderr=1 to $w/out as well (for scripts
# whose checks grep one file for what either stream said).

step() { echo "--- $*"; }
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# fresh_dir DIR: DIR exists and is empty.
fresh_dir() {
    rm -rf "$1"
    mkdir -p "$1"
}
# capture cmd...: runs cmd as above, shows what it printed and sets got to its exit status.
capture() {
    set +e
    if [ "${lib_merge_stderr:-0}" = 1 ]; then
        "$@" >"$w/out" 2>&1
        got=$?
        set -e
        cat "$w/out"
    else
        "$@" >"$w/out" 2>"$w/err"
        got=$?
        set -e
        cat "$w/out" "$w/err"
    fi
}
# expect CODE cmd...: runs cmd (capture), fails unless it exits with CODE.
expect() {
    want=$1
    shift
    capture "$@"
    [ "$got" = "$want" ] || fail "exit $got, wanted $want: $*"
}
# err_has TEXT: stderr of the last command holds TEXT, and no source location or status name.
err_has() {
    grep -qF -- "$1" "$w/err" || fail "stderr lacks '$1'"
    if grep -qE '\.c:[0-9]|CZK_E' "$w/err"; then fail "stderr shows internals"; fi
}
