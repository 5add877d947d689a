#!/usr/bin/env bash
# Help that fits a terminal, and the man page and bash completion that
# meson generates from the same option tables (bench/help_gen.h): no help
# line over 80 columns when not a tty nor over 100 on a wide one; the man
# page names every option --help shows, command by command, and groff
# finds nothing to warn about; the completion offers every option.
set -u
usage="usage: help_test.sh path/to/tests/lib.sh path/to/lanebench path/to/lanebench.1 path/to/completion"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
man_page=$(realpath "${2:?$usage}")
completion=$(realpath "${3:?$usage}")
not_in_a_job
unset COLUMNS

# The commands, from lanebench help's list ("  plan       build ...").
commands=$("$B" help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
[ "$(printf '%s\n' "$commands" | wc -w)" -ge 10 ] || fail "lanebench help lists too few commands: $commands"

# longest_line TEXT: the length of its longest line.
longest_line() {
	awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' <<<"$1"
}

# The options a command's --help shows: long names of its options section.
help_options() {
	"$B" help "$1" | sed -n '/^options:/,/^$/p' | sed -nE 's/^  (-., |    )--([a-z0-9-]+).*/\2/p'
}

[ "$(help_options sim | wc -l)" -ge 25 ] || fail "sim --help shows fewer than 25 options: $(help_options sim)"

# --- width -------------------------------------------------------------------
longest=0
for words in "--help" "help" $(printf 'help:%s %s:--help ' $commands $commands); do
	args=(${words//:/ })
	expect_ok "${args[@]}"
	n=$(longest_line "$out")
	[ "$n" -le 80 ] || fail "lanebench ${args[*]} (not a tty): a line of $n columns: $(awk 'length($0) > 80' <<<"$out" | head -1)"
	[ "$n" -gt "$longest" ] && longest=$n
done
ok "longest help line, not a tty: $longest columns"
run # no command: the usage on stderr, exit 2, as narrow
[ "$rc" = 2 ] && [ "$(longest_line "$err")" -le 80 ] && [[ $err == usage:* ]] ||
	fail "lanebench alone: exit $rc, a line of $(longest_line "$err") columns: $err"
expect_ok help sim
sim_help=$out
expect_ok sim --help
[ "$out" = "$sim_help" ] || fail "lanebench help sim differs from lanebench sim --help"
expect_status 2 "unknown command 'nope'" help nope

# On a terminal of 200 columns the help is wider than 80, never over 100;
# script(1) gives lanebench a terminal.
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
	for c in sim check; do
		wide=$(script -qec "stty cols 200 rows 50; '$B' $c --help" /dev/null | tr -d '\r')
		n=$(longest_line "$wide")
		[ "$n" -le 100 ] && [ "$n" -gt 80 ] || fail "$c --help on a 200-column tty: longest line $n (want 81..100)"
	done
	ok "a 200-column terminal: help up to 100 columns"
else
	ok "SKIP: no script(1) to give lanebench a terminal"
fi

# --- man page --------------------------------------------------------------------
# man_options CMD: the long options in CMD's subsection of the page.
man_options() {
	awk -v want=".SS \"lanebench $1\"" '$0 == want { on = 1; next } /^\.S[SH] / { on = 0 } on' "$man_page" |
		sed 's/\\-/-/g' | grep -oE '\\fB--[a-z0-9-]+' | sed 's/^\\fB--//'
}
for c in $commands; do
	have=$(man_options "$c")
	for o in $(help_options "$c"); do
		grep -qx -- "$o" <<<"$have" || fail "the man page lacks $c --$o"
	done
done
ok "the man page has every command's options"
for s in NAME SYNOPSIS DESCRIPTION ENVIRONMENT "EXIT STATUS" "SEE ALSO"; do
	grep -q "^\.SH $s" "$man_page" || fail "the man page lacks the section $s"
done
for v in $(grep -rhoE 'getenv\("LANEBENCH_[A-Z_]+"\)' "$(dirname "$0")/../.." --include='*.c' 2>/dev/null | sed -E 's/getenv\("(.*)"\)/\1/' | sort -u); do
	grep -q "$v" "$man_page" || fail "the man page's ENVIRONMENT lacks $v"
done
if command -v groff >/dev/null; then
	warnings=$(groff -man -Tutf8 -ww -z "$man_page" 2>&1)
	[ -z "$warnings" ] || fail "groff warns about the man page: $warnings"
	rendered=$(MANWIDTH=80 man -l "$man_page" 2>/dev/null || groff -man -Tutf8 "$man_page" | col -b)
	n=$(longest_line "$rendered")
	[ "$n" -le 80 ] || fail "the man page renders a line of $n columns at 80: $(awk 'length($0) > 80' <<<"$rendered" | head -1)"
	ok "groff: no warnings; rendered at 80 columns, longest line $n"
else
	ok "SKIP: no groff to lint the man page"
fi

# --- bash completion ----------------------------------------------------------------
# complete_words WORDS...: what _lanebench offers for the last word.
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lanebench; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$completion" "$@"
}
offered=$(complete_words lanebench '')
for c in help $commands; do
	grep -qx -- "$c" <<<"$offered" || fail "completion does not offer the command $c"
done
for c in $commands; do
	offered=$(complete_words lanebench "$c" --)
	for o in $(help_options "$c"); do
		grep -qx -- "--$o" <<<"$offered" || fail "completion does not offer $c --$o"
	done
done
ok "the completion offers every command's options"
[ "$(complete_words lanebench sim --stripe '')" = "$(printf 'on\noff')" ] || fail "completion of sim --stripe is not on, off"
grep -qx tcp <<<"$(complete_words lanebench bcast -t '')" || fail "completion of bcast -t lacks tcp"
grep -qx chain <<<"$(complete_words lanebench sim -a ch)" || fail "completion of sim -a ch lacks chain"
touch "$tmp/results-a.csv"
[ "$(cd "$tmp" && complete_words lanebench sim -o results-)" = results-a.csv ] || fail "completion of sim -o offers no file"
[ -z "$(cd "$tmp" && complete_words lanebench sim -p '')" ] || fail "completion of sim -p offers words"
finish help
