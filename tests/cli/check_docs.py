#!/usr/bin/env python3
"""The documentation's own checks (issue 30): README.md is a guide of at
most README_MAX_LINES lines, and every relative link in README.md and
docs/**/*.md names a file that exists, so a page moved or renamed cannot
leave a dead link behind.

    check_docs.py SOURCE_ROOT      check the tree; exit 1 naming each fault
    check_docs.py --self-test      prove each check can fail

spec_references() finds citations of a specification file that is not in
the repository ("SPEC " and a digit); the papers are cited through
docs/papers.md instead."""
import os
import re
import subprocess
import sys
import tempfile

README_MAX_LINES = 300
CHECK_SPEC_REFERENCES = True

# [text](target) and <a href="target">; images alike.
LINK = re.compile(r'\]\(([^)\s]+)\)|href="([^"]+)"')
SPEC = re.compile(r'SPEC [0-9]')


def doc_files(root):
    """README.md and every .md under docs/, relative to root."""
    files = ['README.md']
    for folder, _, names in os.walk(os.path.join(root, 'docs')):
        files += [os.path.relpath(os.path.join(folder, n), root)
                  for n in sorted(names) if n.endswith('.md')]
    return [f for f in files if os.path.exists(os.path.join(root, f))]


def readme_length(root):
    with open(os.path.join(root, 'README.md'), encoding='utf-8') as f:
        n = sum(1 for _ in f)
    if n > README_MAX_LINES:
        return ['README.md: %d lines, more than %d: move the rest into docs/'
                % (n, README_MAX_LINES)]
    return []


def dead_links(root):
    """Relative links whose file is missing (anchors are not checked)."""
    faults = []
    for doc in doc_files(root):
        with open(os.path.join(root, doc), encoding='utf-8') as f:
            for lineno, line in enumerate(f, 1):
                for m in LINK.finditer(line):
                    target = (m.group(1) or m.group(2)).split('#')[0]
                    if not target or re.match(r'[a-z]+:', target):
                        continue  # an anchor in the page, or a URL
                    path = os.path.normpath(
                        os.path.join(root, os.path.dirname(doc), target))
                    if not os.path.exists(path):
                        faults.append('%s:%d: link to %s: no such file'
                                      % (doc, lineno, target))
    return faults


def tracked_files(root):
    """git's tracked files when root is a clone, else every file outside
    build folders and .git."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'],
                             capture_output=True, check=True).stdout
        return [p for p in out.decode().split('\0') if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d != '.git' and not d.startswith('build')]
            files += [os.path.relpath(os.path.join(folder, n), root) for n in names]
        return files


def spec_references(root):
    """'SPEC ' and a digit anywhere but docs/papers.md's own text."""
    faults = []
    for rel in tracked_files(root):
        if rel == 'docs/papers.md' or rel == 'tests/cli/check_docs.py':
            continue
        try:
            with open(os.path.join(root, rel), encoding='utf-8') as f:
                for lineno, line in enumerate(f, 1):
                    if SPEC.search(line):
                        faults.append('%s:%d: cites a SPEC section; cite '
                                      'docs/papers.md instead' % (rel, lineno))
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary, or a tracked file deleted in the work tree
    return faults


def check(root, spec=CHECK_SPEC_REFERENCES):
    faults = readme_length(root) + dead_links(root)
    if spec:
        faults += spec_references(root)
    return faults


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def self_test():
    """Each check passes a good tree and fails a broken one."""
    with tempfile.TemporaryDirectory() as root:
        write(os.path.join(root, 'README.md'),
              '# x\n[guide](docs/guide/a.md#top) [web](https://example.org) [here](#x)\n')
        write(os.path.join(root, 'docs/guide/a.md'), '[up](../../README.md)\n')
        write(os.path.join(root, 'docs/papers.md'), 'SPEC 1.2 is quoted here only\n')
        assert check(root, spec=True) == [], check(root, spec=True)
        write(os.path.join(root, 'docs/guide/b.md'), 'see [gone](../gone.md)\n')
        assert dead_links(root) == ['docs/guide/b.md:1: link to ../gone.md: no such file'], \
            dead_links(root)
        os.remove(os.path.join(root, 'docs/guide/b.md'))
        write(os.path.join(root, 'README.md'), 'line\n' * (README_MAX_LINES + 1))
        assert len(readme_length(root)) == 1
        write(os.path.join(root, 'README.md'), 'line\n' * README_MAX_LINES)
        assert readme_length(root) == []
        write(os.path.join(root, 'algos/x.c'), '/* as SPEC 2.5 says */\n')
        assert spec_references(root) == [
            'algos/x.c:1: cites a SPEC section; cite docs/papers.md instead'], \
            spec_references(root)
    print('check_docs self-test: ok')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        print('usage: check_docs.py SOURCE_ROOT | --self-test', file=sys.stderr)
        return 2
    faults = check(argv[1])
    for fault in faults:
        print(fault)
    print('check_docs: %s' % ('%d faults' % len(faults) if faults else 'ok'))
    return 1 if faults else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
