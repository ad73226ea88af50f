#!/usr/bin/env python3
"""Checks that dependencies between the project's rooms point one way (docs/design.md, "Rooms and
their dependencies").

A room is one directory and one CMake library. Every `#include "..."` in a room's files may name a
header of that room or of a room ROOMS allows it; tests and benchmarks may include any room. In
CMakeLists.txt a room may link only rooms it is allowed, and must link (directly or through what it
links) every room it includes: headers alone compile without the link, so the gap would show only
as an undefined symbol in some later program. Prints one line per breach, file:line first, and exits
1 if there is any. Python standard library only, so that it runs before anything is built.
"""

import os
import re
import sys

# room: (directory, the rooms it may depend on besides itself). Mirrored in docs/design.md.
ROOMS = {
    "base": ("base", []),
    "seenfilter": ("seenfilter", ["base"]),
    "frontier": ("frontier", ["base"]),
    "records": ("records", ["base"]),
    "config": ("config", ["base"]),
    "robots": ("crawler/robots", ["base"]),
    "url": ("crawler/url", ["base"]),
    "extract": ("crawler/extract", ["url", "base"]),
    "fetch": ("crawler/fetch", ["url", "base"]),
    "persist": ("crawler/persist", ["seenfilter", "frontier", "records", "base"]),
    "output": ("crawler/output", ["fetch", "url", "base"]),
    "recrawl": ("crawler/recrawl", ["base"]),
    "content": ("crawler/content", ["base"]),
    "pipeline": ("crawler/pipeline", ["cluster", "config", "robots", "url", "extract", "fetch", "persist", "output",
                                      "recrawl", "content", "seenfilter", "frontier", "records", "base"]),
    "cluster": ("crawler/cluster", ["config", "base"]),
    "observe": ("crawler/observe", ["config", "base"]),
    "cli": ("crawler/cli", ["pipeline", "cluster", "observe", "records", "config", "robots", "url", "extract", "fetch", "persist", "output",
                            "recrawl", "content", "seenfilter", "frontier", "base"]),
    "python": ("python/src", ["seenfilter", "base"]),
}
# Rooms built by their own build file instead of CMakeLists.txt: that file compiles the sources of
# the rooms it uses itself, listed as `ROOMS = [...]`, which takes the place of the CMake links.
BUILT_ELSEWHERE = {"python": "python/setup.py"}
# Code that is no room and no library of the crawler: it may include every room, and what is listed.
CONSUMERS = {
    "tests/support": ("tests/support", []),
    "tests": ("tests", ["tests/support"]),
    "bench": ("bench", ["tests/support"]),
}
# Directories holding rooms and nothing else: a source file there outside every room is an error.
ROOM_PARENTS = ["crawler"]
SOURCE_SUFFIXES = (".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def owner(path):
    """The room or consumer whose directory holds `path` (the deepest one), or None."""
    best = None
    for name, (directory, _) in list(ROOMS.items()) + list(CONSUMERS.items()):
        if path.startswith(directory + "/") and (best is None or len(directory) > len(best[1])):
            best = (name, directory)
    return best[0] if best else None


def allowed(source):
    if source in ROOMS:
        return {source, *ROOMS[source][1]}
    return {source, *ROOMS, *CONSUMERS[source][1]}


def source_files(root):
    tops = [d for d, _ in ROOMS.values()] + [d for d, _ in CONSUMERS.values()] + ROOM_PARENTS
    seen = set()
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for filename in sorted(filenames):
                path = os.path.relpath(os.path.join(dirpath, filename), root).replace(os.sep, "/")
                if path.endswith(SOURCE_SUFFIXES) and path not in seen:
                    seen.add(path)
                    yield path


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            match = INCLUDE.match(line)
            if match:
                yield number, match.group(1)


def check_includes(root):
    """Returns (errors, {room: {included room: first "file:line"}})."""
    errors, used = [], {}
    for path in source_files(root):
        source = owner(path)
        if source is None:
            errors.append(f"{path}:1: file is in no room; add its directory to ROOMS in scripts/check_layers.py")
            continue
        for number, header in includes(root, path):
            target = owner(header)
            where = f"{path}:{number}"
            if target is None:
                errors.append(f'{where}: "{header}" is in no room; includes are written from the source root')
            elif target not in allowed(source):
                errors.append(f'{where}: {source} may not include "{header}" ({target}); '
                              f"{source} may depend on {', '.join(sorted(allowed(source) - {source})) or 'nothing'}")
            elif source in ROOMS and target != source:
                used.setdefault(source, {}).setdefault(target, where)
    return errors, used


def declared_links(root):
    """{room: ([linked rooms], line)} from CMakeLists.txt's bloomcrawl_library() and target_link_libraries()."""
    path = os.path.join(root, "CMakeLists.txt")
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"#[^\n]*", "", f.read())  # comments, keeping the line numbers
    links = {}
    calls = r"\b(bloomcrawl_library|target_link_libraries)\(\s*([\w-]+)\s+([^)]*)\)"
    for match in re.finditer(calls, text):
        kind, name, args = match.groups()
        words = args.split()
        if kind == "bloomcrawl_library":
            words = words[1:]  # the directory
        line = text.count("\n", 0, match.start()) + 1
        if name in ROOMS:
            entry = links.setdefault(name, ([], line))
            entry[0].extend(w for w in words if w in ROOMS)
    return links


def declared_build_rooms(root, build_file):
    """(rooms, line) of the `ROOMS = [...]` list in a room's own build file; ([], 1) without one."""
    path = os.path.join(root, build_file)
    if not os.path.exists(path):
        return [], 1
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            match = re.match(r"ROOMS\s*=\s*\[([^\]]*)\]", line)
            if match:
                return re.findall(r"[\w-]+", match.group(1)), number
    return [], 1


def check_build_files(root, used):
    errors = []
    for room, build_file in sorted(BUILT_ELSEWHERE.items()):
        built, line = declared_build_rooms(root, build_file)
        for other in built:
            if other not in ROOMS[room][1]:
                errors.append(f"{build_file}:{line}: {room} compiles {other}, which it may not depend on")
        for target, where in sorted(used.get(room, {}).items()):
            if target not in built:
                errors.append(f"{where}: {room} includes {target} but {build_file}:{line} does not compile it")
    return errors


def check_links(root, used):
    errors = []
    links = declared_links(root)
    for room, (linked, line) in links.items():
        for other in linked:
            if other not in ROOMS[room][1]:
                errors.append(f"CMakeLists.txt:{line}: {room} links {other}, which it may not depend on")

    def reachable(room):
        found, todo = set(), [room]
        while todo:
            for other in links.get(todo.pop(), ([], 0))[0]:
                if other not in found:
                    found.add(other)
                    todo.append(other)
        return found

    for room, targets in sorted(used.items()):
        if room in BUILT_ELSEWHERE:
            continue  # check_build_files
        if room not in links:
            errors.append(f"CMakeLists.txt:1: {room} includes other rooms but has no library")
            continue
        for target, where in sorted(targets.items()):
            if target not in reachable(room):
                errors.append(f"{where}: {room} includes {target} but CMakeLists.txt:{links[room][1]} "
                              f"does not link it")
    return errors


def check(root):
    errors, used = check_includes(root)
    return errors + check_links(root, used) + check_build_files(root, used)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    errors = check(root)
    for error in errors:
        print(error)
    if errors:
        print(f"check_layers: {len(errors)} breach(es) of the dependency rule (docs/design.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
