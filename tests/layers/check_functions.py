#!/usr/bin/env python3
"""No function over 60 lines in production code (docs/DESIGN.md, "Layers"):
every .c and .h under the production folders (PRODUCTION below; those that
exist) is read for function bodies at file scope, and each body's length
is counted as the lines from its opening brace to its closing brace, both
included.  Counted on the text with comments, strings and preprocessor
lines blanked, so a brace in any of them is no brace.

A function body is a `{` at file scope whose declaration head (the text
since the previous `;`, `}` or preprocessor line at file scope) ends with
`)` and holds no `=` outside parentheses: that leaves out struct, union
and enum bodies and initializers (`= { ... }`).

    check_functions.py SOURCE_ROOT        check the tree; exit 1 naming each
                                          function over the limit
    check_functions.py --list SOURCE_ROOT every function over 40 lines, the
                                          longest first, and the count over
                                          the limit (exit 0)
    check_functions.py --self-test        the counter on made-up sources: it
                                          must pass a good file and name each
                                          bad one
"""
import os
import re
import sys
import tempfile

LIMIT = 60
PRODUCTION = ["lib", "net", "algos", "model", "transports", "launch", "engine", "repro",
              "report", "bench", "tools"]
IDENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")
DIRECTIVE = re.compile(r"[ \t]*#")
NOT_NAMES = ("__attribute__", "__declspec", "alignas", "_Alignas")


def blank(text):
    """text with comments, string and character literals and preprocessor
    lines (with their continuations) replaced by spaces, newlines kept, so
    that line numbers stay and no brace inside them counts."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and DIRECTIVE.match(text, i):
            while i < n and text[i] != "\n":  # a directive, with its continuations
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                if text.startswith("/*", i):  # a comment may run past the line
                    j = text.find("*/", i + 2)
                    j = n if j < 0 else j + 2
                    out.append(re.sub(r"[^\n]", " ", text[i:j]))
                    i = j
                    continue
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            line_start = False
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            line_start = False
            continue
        out.append(c)
        line_start = c == "\n"
        i += 1
    return "".join(out)


def functions(text):
    """[(name, first line of the body, lines from { to } included)] of the
    function bodies at file scope."""
    code = blank(text)
    found = []
    depth = 0
    head_from = 0  # where the current declaration head starts
    body = None    # (name, line) of the function body being read
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            if depth == 0:
                body = judge_head(code[head_from:i], line)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if body:
                    found.append((body[0], body[1], line - body[1] + 1))
                body = None
                head_from = i + 1
        elif c == ";" and depth == 0:
            head_from = i + 1
    return found


def judge_head(head, line):
    """(name, line) when head declares a function whose body follows, else
    None (a struct, union or enum body, an initializer)."""
    text = head.strip()
    if not text.endswith(")"):
        return None
    depth, name = 0, None
    for k, c in enumerate(text):
        if c == "(":
            m = IDENT.search(text[:k]) if depth == 0 and name is None else None
            if m and m.group(1) not in NOT_NAMES:
                name = m.group(1)  # the first parenthesis not an attribute's
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "=" and depth == 0:
            return None
    return (name, line) if name else None


def long_functions(root, limit):
    found = []
    for top in PRODUCTION:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for fn, line, length in functions(text):
                    if length > limit:
                        found.append((length, path, line, fn))
    return sorted(found, key=lambda t: (-t[0], t[1], t[2]))


GOOD = """/* A { in a comment, and "}" in a string. */
#include <stdio.h>
#define BLOCK(x) do { x; } while (0)
struct point { int x, y; };
static const int table[] = { 1, 2, 3 };
enum colour { RED, GREEN };
static int short_one(int a)
{
	if (a) {
		puts("{{{");
	}
	return '}';
}
#if 0
#endif
"""


def self_test():
    def bad_function(name, lines):
        return "static void %s(void)\n{\n%s}\n" % (name, "\tputs(\"x\");\n" * (lines - 2))

    cases = [
        ("a good file", GOOD, []),
        ("exactly the limit", GOOD + bad_function("at_limit", LIMIT), []),
        ("one line over", GOOD + bad_function("too_long", LIMIT + 1), ["too_long"]),
        ("a K&R brace on the head's line",
         "int kr(int a) {\n" + "\ta++;\n" * LIMIT + "\treturn a;\n}\n", ["kr"]),
        ("a multi-line head and braces in a body's strings",
         "static int\nsplit_head(const char *s,\n\t   int n)\n{\n" +
         "\tputs(\"}\"); /* } */\n" * LIMIT + "\treturn n;\n}\n", ["split_head"]),
        ("an attribute before the name",
         "__attribute__((unused)) static int attr_fn(void)\n{\n" + "\tputs(\"x\");\n" * LIMIT +
         "}\n", ["attr_fn"]),
        ("a brace on a directive's continued line is no brace",
         "#define OPEN_BLOCK(x) \\\n\t{ x\n" + bad_function("after_macro", LIMIT + 1),
         ["after_macro"]),
        ("a long struct and initializer are no functions",
         "struct big {\n" + "\tint f;\n" * 70 + "};\nstatic int v[] = {\n" +
         "\t1,\n" * 70 + "};\n", []),
    ]
    errors = []
    for what, text, want in cases:
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "model"))
        with open(os.path.join(d, "model", "x.c"), "w", encoding="utf-8") as f:
            f.write(text)
        got = [fn for _, _, _, fn in long_functions(d, LIMIT)]
        if got != want:
            errors.append(f"{what}: want {want}, got {got}")
    counted = {fn: n for fn, _, n in functions(GOOD)}
    if counted != {"short_one": 6}:
        errors.append(f"the good file's functions: want {{'short_one': 6}}, got {counted}")
    for e in errors:
        print("FAIL:", e)
    print("self-test: %d failure(s)" % len(errors))
    return 1 if errors else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--list":
        found = long_functions(argv[2], 40)
        for length, path, line, fn in found:
            print(f"{length:5d} {path}:{line}: {fn}")
        print("functions: %d over %d lines" % (sum(1 for t in found if t[0] > LIMIT), LIMIT))
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    found = long_functions(argv[1], LIMIT)
    for length, path, line, fn in found:
        print(f"{path}:{line}: {fn} is {length} lines (at most {LIMIT})")
    print("functions: %d over %d lines" % (len(found), LIMIT))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
