#!/usr/bin/env bash
# rmalab's command line follows the GNU conventions
# (www.gnu.org/prep/standards, "Command-Line Interfaces"): --version and
# --help print to stdout and exit 0, --version's first line is the name and
# the version; a usage error is a short diagnosis on stderr with a hint of
# --help, and exit status 2; the same for rmalab test. --help among the
# leading options launches nothing, and after FILE it is the script's.
# Usage: gnu-options.sh RMALAB. Prints each check; exits 1 on any failure.
set -uo pipefail
rmalab=${1:?usage: gnu-options.sh RMALAB}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# An mpiexec that only records that it was called, and with what, first on
# the PATH: nothing is launched.
mkdir "$tmp/bin"
cat >"$tmp/bin/mpiexec" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$tmp/mpiexec-args"
exit 0
EOF
chmod +x "$tmp/bin/mpiexec"

# run ARGS...: $status, $out, $err of rmalab ARGS, with the fake mpiexec.
run() {
    rm -f "$tmp/mpiexec-args"
    PATH="$tmp/bin:$PATH" timeout 20 "$rmalab" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

check() { # check WHAT CONDITION...: CONDITION is a shell test
    local what=$1
    shift
    if "$@"; then
        echo "ok: $what"
    else
        echo "FAIL: $what"
        echo "  exit status $status; stdout:"
        sed 's/^/    /' "$tmp/out" | head -n 8
        echo "  stderr:"
        sed 's/^/    /' "$tmp/err" | head -n 8
        failed=$((failed + 1))
    fi
}

version_ok() {
    [ "$status" -eq 0 ] && [ -z "$err" ] &&
        head -n 1 "$tmp/out" | grep -Eq '^rmalab [0-9]+\.[0-9]+\.[0-9]+$' &&
        grep -q '^Copyright' "$tmp/out" && grep -q '^License MIT' "$tmp/out" &&
        grep -q 'NO WARRANTY' "$tmp/out"
}

same_version() { version_ok && [ "$(head -n 1 "$tmp/out")" = "$version" ]; }

# help_ok PROGRAM: exit 0, the usage on stdout, nothing on stderr.
help_ok() { [ "$status" -eq 0 ] && [ -z "$err" ] && [ "${out#"Usage: $1 "}" != "$out" ]; }

# usage_error PROGRAM: exit 2, nothing on stdout, a diagnosis and the hint.
usage_error() {
    [ "$status" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -le 3 ] &&
        grep -Fq "Try '$1 --help' for more information." "$tmp/err"
}

launched_nothing() { [ ! -e "$tmp/mpiexec-args" ]; }

write_error() { [ "$status" -eq 1 ] && grep -q "write error" "$tmp/err"; }

# script_got ARGS...: mpiexec ran, and its last arguments were ARGS.
script_got() {
    [ "$status" -eq 0 ] && [ -e "$tmp/mpiexec-args" ] &&
        [ "$(tail -n $# "$tmp/mpiexec-args")" = "$(printf '%s\n' "$@")" ]
}

run --version
check "rmalab --version: 'rmalab X.Y.Z', copyright, licence, warranty; exit 0" version_ok
version=$(head -n 1 "$tmp/out")
run test --version
check "rmalab test --version: the same text" same_version
run --help
check "rmalab --help: the usage on stdout, exit 0" help_ok rmalab
run test --help
check "rmalab test --help: its usage on stdout, exit 0" help_ok "rmalab test"
run -n 2 --help
check "rmalab -n 2 --help: the usage" help_ok rmalab
check "rmalab -n 2 --help: nothing launched" launched_nothing
run -n 2 -hosts a,b --version
check "rmalab -n 2 -hosts a,b --version: the version" same_version
check "rmalab -n 2 -hosts a,b --version: nothing launched" launched_nothing
: >"$tmp/out"
"$rmalab" --version >/dev/full 2>"$tmp/err"
status=$?
check "rmalab --version >/dev/full: exit 1 and a write error" write_error

for args in "-n abc" "-n" "-n -3" "-n 0" "-np 2x" "-e" "-genv K" "--trace t.json" \
            "-e x script.lua"; do
    # shellcheck disable=SC2086 # the words of $args are the arguments
    run $args
    check "rmalab $args: a usage error (exit 2, 'Try rmalab --help')" usage_error rmalab
    check "rmalab $args: nothing launched" launched_nothing
done
for args in "" "-j abc x" "-j" "--timeout abc x" "--ranks 0 x"; do
    # shellcheck disable=SC2086
    run test $args
    check "rmalab test $args: a usage error (exit 2, 'Try rmalab test --help')" \
        usage_error "rmalab test"
done

# After FILE, --help and --version are the script's: mpiexec runs it.
printf 'print(...)\n' >"$tmp/script.lua"
run -n 2 "$tmp/script.lua" --help --version
check "rmalab -n 2 FILE --help --version: mpiexec runs the script with them" \
    script_got "$tmp/script.lua" --help --version

if [ "$failed" -gt 0 ]; then
    echo "$failed failed"
    exit 1
fi
echo "rmalab's command line follows the GNU conventions"
