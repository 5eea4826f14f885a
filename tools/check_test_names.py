#!/usr/bin/env python3
"""Every Catch2 test case can run under ctest: its name holds no ';'.

ctest registers each test case by name (catch_discover_tests), and a CMake list splits a name
at ';': ctest then asks Catch2 for a test that does not exist, Catch2 runs nothing, and the
test "passes" without having run. A name that starts with '~' or '*' or ends with '*' is a
pattern to Catch2, not a name. Exit 1 and one line per such name: file, line, name. The
checks' own fixtures (tests/fixtures) are left out.

    python3 tools/check_test_names.py [REPO] [FOLDER...]   (folders: tests lobby/tests)
"""
import pathlib
import re
import sys

# A test macro and its name: one or more adjacent string literals (a name may be split).
MACRO = re.compile(r'\b(?:TEST_CASE|SCENARIO|TEMPLATE_TEST_CASE|TEST_CASE_METHOD\s*\([^,]*,)\s*\(?\s*'
                   r'((?:"(?:[^"\\]|\\.)*"\s*)+)')
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def main(argv):
    repo = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).parent.parent)
    folders = argv[2:] or ['tests', 'lobby/tests']
    problems, names = [], 0
    for folder in folders:
        for path in sorted((repo / folder).rglob('*.cpp')):
            if 'fixtures' in path.relative_to(repo).parts:
                continue  # the checks' own breaches
            text = path.read_text(encoding='utf-8', errors='replace')
            for m in MACRO.finditer(text):
                name = ''.join(LITERAL.findall(m.group(1)))
                names += 1
                line = text.count('\n', 0, m.start()) + 1
                where = f'{path.relative_to(repo)}:{line}'
                if ';' in name:
                    problems.append(f'{where}: "{name}"  <- a ";" splits the name under ctest: the test never runs')
                elif name.startswith(('~', '*')) or name.endswith('*'):
                    problems.append(f'{where}: "{name}"  <- Catch2 reads it as a pattern, not a name')
    for p in problems:
        print(p)
    if not problems:
        print(f'test names: all {names} test cases run under ctest by their names')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
