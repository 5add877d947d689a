#!/usr/bin/env python3
"""The layer rule: a source folder includes only from its own layer or the
layers below it.  Lowest first:

    lib -> net -> algos -> model -> transports -> launch -> engine -> repro -> report -> bench

A subfolder is part of its top folder's layer (transports/dpdk/ is
transports, algos/beaumont/ is algos).  Every #include "..." of a
project header is written from the source root ("engine/job.h"), or bare
("job.h") for a header in the same folder; a "../" path is refused, since
it hides which layer it reaches into.

    check_layers.py SOURCE_ROOT       check the tree; exit 1 naming each
                                      include that breaks the rule
    check_layers.py --self-test       the checker on made-up trees: it must
                                      pass a good one and name each bad one
"""
import os
import re
import sys
import tempfile

LAYERS = ["lib", "net", "algos", "model", "transports", "launch", "engine", "repro", "report", "bench"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """'transports/dpdk/dpdk.c' -> 'transports'; None outside the layers."""
    top = path.split("/")[0]
    return top if top in LAYERS else None


def violations(root):
    found = []
    for layer in LAYERS:
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                for target in INCLUDE.findall(text):
                    why = judge(root, path, target)
                    if why:
                        found.append(f'{path}: #include "{target}": {why}')
    return found


def judge(root, path, target):
    here = layer_of(path)
    if target.startswith("../") or "/../" in target:
        return "a relative path up; write it from the source root"
    if "/" not in target:
        if os.path.exists(os.path.join(root, os.path.dirname(path), target)):
            return None
        return "no such header in this folder"
    there = layer_of(target)
    if there is None:
        return f"'{target.split('/')[0]}' is not a layer ({', '.join(LAYERS)})"
    if not os.path.exists(os.path.join(root, target)):
        return "no such header"
    if LAYERS.index(there) > LAYERS.index(here):
        return f"{here} may not include from {there}, a layer above it"
    return None


def self_test():
    def tree(files):
        d = tempfile.mkdtemp()
        for p, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(d, p), "w", encoding="utf-8") as f:
                f.write(text)
        return d

    good = {"lib/a.h": "", "lib/a.c": '#include "a.h"\n',
            "net/n.h": '#include "lib/a.h"\n',
            "algos/s.h": '#include "net/n.h"\n',
            "algos/fam/f.h": '#include "algos/s.h"\n#include "net/n.h"\n',
            "algos/fam/f.c": '#include "f.h"\n',
            "algos/t.c": '#include "algos/fam/f.h"\n',
            "engine/e.c": '#include "lib/a.h"\n#include "algos/fam/f.h"\n',
            "transports/dpdk/d.c": '#include "lib/a.h"\n',
            "repro/r.h": '#include "engine/e.h"\n#include "algos/fam/f.h"\n',
            "report/w.c": '#include "repro/r.h"\n'}
    bad = {
        "lib/x.c": ('#include "engine/e.h"\n', "lib may not include from engine"),
        "lib/n.c": ('#include "net/n.h"\n', "lib may not include from net"),
        "net/y.c": ('#include "algos/s.h"\n', "net may not include from algos"),
        "net/z.c": ('#include "algos/fam/f.h"\n', "net may not include from algos"),
        "algos/fam/g.c": ('#include "engine/e.h"\n', "algos may not include from engine"),
        "algos/fam/h.c": ('#include "s.h"\n', "no such header in this folder"),
        "engine/q.c": ('#include "repro/r.h"\n', "engine may not include from repro"),
        "repro/s.c": ('#include "report/v.h"\n', "repro may not include from report"),
        "transports/dpdk/y.c": ('#include "launch/b.h"\n', "transports may not include from launch"),
        "algos/z.c": ('#include "../lib/a.h"\n', "relative path up"),
        "model/w.c": ('#include "harness/old.h"\n', "not a layer"),
        "report/v.c": ('#include "gone.h"\n', "no such header in this folder"),
    }
    base = dict(good, **{"engine/e.h": "", "launch/b.h": "", "report/v.h": ""})
    errors = []
    if violations(tree(base)):
        errors.append("a good tree was refused: %s" % violations(tree(base)))
    for path, (text, want) in bad.items():
        got = violations(tree(dict(base, **{path: text})))
        if len(got) != 1 or path not in got[0] or want not in got[0]:
            errors.append(f"{path} with {text.strip()}: want one error with '{want}', got {got}")
    for e in errors:
        print("FAIL:", e)
    print("self-test: %d failure(s)" % len(errors))
    return 1 if errors else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    found = violations(argv[1])
    for v in found:
        print(v)
    print("layers: %d include(s) break the rule" % len(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
