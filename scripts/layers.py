#!/usr/bin/env python3
"""The module graph of the app (src/) and the engine (crates/engine/src/), read from the code, and
the rules it must keep (docs/architecture.md):

- no import circles, in either crate: no two files (modules) reach each other through imports;
- the app's layers: every module of src/ lies in a layer, its top folder, and imports only from the
  layers its own layer may use (LAYERS below); `app.rs` puts them together and may use any but the
  worker's;
- no two modules of the app share a name, so a name says which file it is;
- the view models (`logic/`) use no browser crate, and only the layers that hold signals use
  Leptos (FORBIDDEN_CRATES below).

An import is any path that names a module of the crate: `crate::a::b`, `super::x`, `self::x`, or a
name brought in by a `use` (groups and nested groups included). Code under `#[cfg(test)]` is left
out: a test may use what it likes. Prints what it finds and exits with 1 if a rule is broken.

    scripts/layers.py            check both crates (run by `make test`)
    scripts/layers.py --graph    also print each app module's imports
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# What each layer of the app may import, besides itself. Imports go views → state → client →
# {wire, platform, logic}; worker → {wire, platform, logic, render} (the pure view models and the
# drawing of diffs, which a worker draws the history's insights with); wire and platform know no
# app type.
LAYERS = {
    "platform": set(),
    "wire": set(),
    "logic": set(),
    "render": {"platform"},
    "worker": {"wire", "platform", "logic", "render"},
    "client": {"wire", "platform", "logic"},
    "state": {"client", "wire", "platform", "logic", "render"},
    "views": {"state", "logic", "render", "platform", "wire"},
    # The root component: it makes the states and lays the views out.
    "app": {"views", "state", "client", "wire", "platform", "logic", "render"},
}


# Crates a layer may not use: the view models are pure (built and tested natively), and only the
# layers that hold signals use the reactive system.
FORBIDDEN_CRATES = {
    "logic": {"web_sys", "js_sys", "wasm_bindgen", "wasm_bindgen_futures", "gloo", "leptos"},
    "wire": {"leptos", "gloo"},
    "platform": {"leptos"},
    "worker": {"leptos"},
    "client": {"leptos"},
}


def crates_used(path):
    """The external crates a file names in its code (tests left out)."""
    text = without_tests_and_comments(open(path, encoding="utf-8").read())
    return set(re.findall(r"\b([a-z_][a-z_0-9]*)::", text))


def modules(root):
    """Module path (`a::b`) → file, for every file of a crate's src/ but its binaries."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".rs"):
                continue
            relative = os.path.relpath(os.path.join(folder, name), root)[:-3].replace(os.sep, "/")
            if relative.startswith("bin/") or relative in ("lib", "main"):
                continue
            if relative.endswith("/mod"):
                relative = relative[: -len("/mod")]
            found[relative.replace("/", "::")] = os.path.join(folder, name)
    return found


def code_only(text):
    """The text with its comments removed and its string and character literals emptied, read
    as Rust's lexer reads them (raw strings, byte strings, lifetimes)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            depth = 0
            while i < n:
                if text.startswith("/*", i):
                    depth += 1
                    i += 2
                elif text.startswith("*/", i):
                    depth -= 1
                    i += 2
                    if depth == 0:
                        break
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + len(hashes) + 2)
            out.append('""')
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'" and re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^'\\])'", text[i:]):
            literal = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^'\\])'", text[i:]).group(0)
            out.append("' '")
            i += len(literal)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_tests_and_comments(text):
    """The code of a file without comments, literals' insides and `#[cfg(test)]` items."""
    text = code_only(text)
    out = []
    at = 0
    for found in re.finditer(r"#\[cfg\(test\)\]", text):
        if found.start() < at:
            continue
        out.append(text[at : found.start()])
        # Skip the item: up to the end of its braces, or its semicolon.
        i = found.end()
        depth = 0
        while i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            elif c == ";" and depth == 0:
                i += 1
                break
            i += 1
        at = i
    out.append(text[at:])
    return "".join(out)


def expand_use(tree):
    """The paths of a `use` tree: `a::{b, c::{d, e}}` → a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"as\w+$", "", tree)] if tree else []
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    parts, depth, current = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += c == "{"
        depth -= c == "}"
        current += c
    parts.append(current)
    paths = []
    for part in parts:
        if not part:
            continue
        for path in expand_use(part):
            paths.append(prefix + path if path != "self" else prefix.rstrip(":"))
    return paths


def resolve(path, module, names):
    """The module of the crate a path names, seen from `module`; None if it names none."""
    parts = path.split("::")
    here = module.split("::") if module else []
    if parts[0] == "crate":
        parts = parts[1:]
    elif parts[0] in ("super", "self"):
        # A module's `super` is its parent; a `mod.rs` file is its folder's module.
        base = list(here)
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
        parts = base + parts
    else:
        return None
    for length in range(len(parts), 0, -1):
        candidate = "::".join(parts[:length])
        if candidate in names:
            return candidate
    return None


def imports(names):
    """Module → the modules of the crate it imports (its own children and parents left out)."""
    graph = {}
    for module, path in names.items():
        text = without_tests_and_comments(open(path, encoding="utf-8").read())
        paths = []
        for use in re.finditer(r"\buse\s+([^;]+);", text):
            paths.extend(expand_use(use.group(1)))
        paths.extend(re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", text))
        targets = set()
        for p in paths:
            target = resolve(p, module, names)
            if target and target != module:
                targets.add(target)
        graph[module] = {
            t for t in targets if not t.startswith(module + "::") and not module.startswith(t + "::")
        }
    return graph


def circles(graph):
    """The strongly connected sets of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module):
    return module.split("::")[0]


def check(app_root, engine_root):
    """The problems of the two crates' module graphs, and the number of modules of each."""
    problems = []
    app = modules(app_root)
    engine = modules(engine_root)
    app_graph = imports(app)
    for crate, graph in (("src", app_graph), ("crates/engine/src", imports(engine))):
        for group in circles(graph):
            problems.append(f"{crate}: an import circle of {len(group)} files: {' '.join(group)}")
    for module in sorted(app):
        layer = layer_of(module)
        if layer not in LAYERS:
            problems.append(f"src/{module.replace('::', '/')}: in no layer (its top folder is none of {', '.join(LAYERS)})")
            continue
        for target in sorted(app_graph[module]):
            other = layer_of(target)
            if other != layer and other not in LAYERS[layer]:
                problems.append(f"src: {module} ({layer}) imports {target} ({other}), which {layer} may not use")
    for module in sorted(app):
        for crate in sorted(crates_used(app[module]) & FORBIDDEN_CRATES.get(layer_of(module), set())):
            problems.append(f"src: {module} ({layer_of(module)}) uses {crate}, which {layer_of(module)} may not")
    by_name = {}
    for module in app:
        by_name.setdefault(module.split("::")[-1], []).append(module)
    for name, same in sorted(by_name.items()):
        if len(same) > 1:
            problems.append(f"src: {len(same)} modules are called {name}: {', '.join(sorted(same))}")
    return problems, app_graph, app, engine


def self_test():
    """The checks find what they are for, on a made-up crate: a circle (through `super::`), an
    import a layer may not make (in a `use` group), a module in no layer, and two modules of one
    name; and they ignore comments, strings and test code."""
    import tempfile

    files = {
        "app/wire/mod.rs": "//! x\nuse crate::client::{handle::{Handle}, other};\n",
        "app/client/mod.rs": "pub mod handle;\npub mod other;\n",
        "app/client/handle.rs": "use super::other::Thing;\n",
        "app/logic/mod.rs": "fn f() -> f64 { js_sys::Date::now() }\n",
        "app/client/other.rs": "fn f() { super::handle::g(); }\n// crate::views::x\nconst S: &str = \"crate::views::x\";\n#[cfg(test)]\nmod tests { use crate::views::x; }\n",
        "app/views/handle.rs": "use crate::state::x;\n",
        "app/loose.rs": "",
        "engine/a.rs": "use crate::b::B;\n",
        "engine/b.rs": "",
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as out:
                out.write(text)
        problems, graph, _, _ = check(os.path.join(root, "app"), os.path.join(root, "engine"))
    expected = [
        "src: an import circle of 2 files: client::handle client::other",
        "src: wire (wire) imports client (client), which wire may not use",
        "src: wire (wire) imports client::handle (client), which wire may not use",
        "src: wire (wire) imports client::other (client), which wire may not use",
        "src/loose: in no layer",
        "src: 2 modules are called handle: client::handle, views::handle",
        "src: logic (logic) uses js_sys, which logic may not",
    ]
    missing = [e for e in expected if not any(p.startswith(e) for p in problems)]
    unexpected = [p for p in problems if not any(p.startswith(e) for e in expected)]
    ignored = "views" not in {t.split("::")[0] for t in graph.get("client::other", ())}
    if missing or unexpected or not ignored:
        print(f"layers: the self-test failed: missing {missing}, unexpected {unexpected}, comments and tests ignored: {ignored}")
        return False
    return True


def main():
    if not self_test():
        return 1
    problems, app_graph, app, engine = check(os.path.join(ROOT, "src"), os.path.join(ROOT, "crates/engine/src"))
    if "--graph" in sys.argv:
        for module in sorted(app_graph):
            print(f"{module} -> {', '.join(sorted(app_graph[module]))}")
    for problem in problems:
        print(problem)
    print(
        f"layers: {len(app)} app modules in {len({layer_of(m) for m in app})} layers, {len(engine)} engine modules; "
        f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
