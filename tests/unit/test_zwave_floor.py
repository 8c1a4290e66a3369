"""Issue 41: the Z-Wave vocabulary is the ground floor. No command-class number is written outside
`zwave_mcp/zwave/`: every other module says `CC.<NAME>`.

The walk finds an integer literal used as a command class wherever the code says so: compared with (`==`,
`!=`, `in`) or assigned to something named like a command class (`cc`, `*_cc`, `*_CCS`, `command_class`,
`commandClass`, a value's `["commandClass"]` or `.get("commandClass")`), passed as such a keyword, put under
a `"commandClass"` key, given to `CC(...)`, or written in a table that is looked up by one (a set, the keys of
a dict, the first element of `(cc, property)` tuples), where the table is a literal in place or a module-level
name."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from zwave_mcp.zwave.classes import CC

PACKAGE = Path(__file__).resolve().parents[2] / "zwave_mcp"

_CC_WORDS = {"cc", "ccs", "commandclass", "commandclasses"}


def _says_command_class(name: str) -> bool:
    """`cc`, `NAMING_CC`, `NUMERIC_CCS`, `_CC_TOPIC_NAMES`, `command_class`, `commandClass`; not
    `command_class_name` or `commandClassVersion`, which say something else about one."""
    folded = name.lower()
    if folded.endswith(("name", "version")):
        return False
    return bool(_CC_WORDS & set(folded.strip("_").split("_"))) or "commandclass" in folded.replace("_", "")


def _is_cc(node: ast.expr) -> bool:
    """An expression that holds a command class by its name, key or lookup."""
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return _says_command_class(name)
        case ast.Subscript(slice=ast.Constant(value=str(key))):
            return _says_command_class(key)
        case ast.Call(func=ast.Attribute(attr="get"), args=[ast.Constant(value=str(key)), *_]):
            return _says_command_class(key)
        case ast.Call(func=ast.Name(id="int"), args=[inner, *_]):
            return _is_cc(inner)
    return False


def _numbers(node: ast.expr | None) -> Iterator[ast.Constant]:
    """The integer literals of a number or a literal collection of numbers (a dict's keys); not 0, which
    says "none" (`command_class: int = 0`), never No Operation."""
    match node:
        case ast.Constant(value=int()) if not isinstance(node.value, bool) and node.value != 0:
            yield node
        case ast.Set(elts=elts) | ast.Tuple(elts=elts) | ast.List(elts=elts) | ast.Dict(keys=elts):  # type: ignore[misc]
            for elt in elts:
                yield from _numbers(elt)
        case ast.Call(func=ast.Name(id="frozenset" | "set" | "tuple"), args=[inner]):
            yield from _numbers(inner)


def _first_numbers(node: ast.expr | None) -> Iterator[ast.Constant]:
    """The first elements of the tuples in a literal collection of `(cc, property, …)` tuples."""
    match node:
        case ast.Set(elts=elts) | ast.Tuple(elts=elts) | ast.List(elts=elts) | ast.Dict(keys=elts):  # type: ignore[misc]
            for elt in elts:
                if isinstance(elt, ast.Tuple) and elt.elts:
                    yield from _numbers(elt.elts[0])
        case ast.Call(func=ast.Name(id="frozenset" | "set" | "tuple"), args=[inner]):
            yield from _first_numbers(inner)


def _cc_parameters(trees: list[ast.Module]) -> dict[str, set[int]]:
    """Function name → the positions of its parameters that say command class (`value_key(cc, …)`)."""
    found: dict[str, set[int]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                params = [*node.args.posonlyargs, *node.args.args]
                positions = {i for i, a in enumerate(params) if _says_command_class(a.arg)}
                found[node.name] = found.get(node.name, set()) | positions
    return found


def _bare_cc_numbers(
    tree: ast.Module, cc_parameters: dict[str, set[int]] | None = None
) -> Iterator[ast.Constant]:
    """The integer literals of `tree` written as command classes (see the module docstring)."""
    cc_parameters = _cc_parameters([tree]) if cc_parameters is None else cc_parameters
    tables = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }

    def table(node: ast.expr) -> ast.expr | None:
        return tables.get(node.id) if isinstance(node, ast.Name) else node

    def lookup(holder: ast.expr, key: ast.expr) -> Iterator[ast.Constant]:
        """`key in holder`, `holder[key]`, `holder.get(key)`: a table of command classes or of `(cc, …)`."""
        if _is_cc(key):
            yield from _numbers(table(holder))
        elif isinstance(key, ast.Tuple) and key.elts and _is_cc(key.elts[0]):
            yield from _first_numbers(table(holder))

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for op, a, b in zip(node.ops, sides, sides[1:], strict=False):
                if isinstance(op, ast.In | ast.NotIn):
                    yield from lookup(b, a)
                elif _is_cc(a) or _is_cc(b):
                    yield from _numbers(b if _is_cc(a) else a)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                named = isinstance(target, ast.Name) and target.id.strip("_") in CC.__members__
                if _is_cc(target) or (named and isinstance(node.value, ast.Constant)):  # `USER_CODE = 99`
                    yield from _numbers(node.value)
        elif isinstance(node, ast.keyword) and node.arg and _says_command_class(node.arg):
            yield from _numbers(node.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and isinstance(key.value, str)
                    and _says_command_class(key.value)
                ):
                    yield from _numbers(value)
        elif isinstance(node, ast.Subscript):
            yield from lookup(node.value, node.slice)
        elif isinstance(node, ast.Call):
            func = node.func
            called = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if called == "CC" and node.args:
                yield from _numbers(node.args[0])
            if called == "get" and isinstance(func, ast.Attribute) and node.args:
                yield from lookup(func.value, node.args[0])
            for i in cc_parameters.get(called, set()) & set(range(len(node.args))):
                yield from _numbers(node.args[i])


def _found(package: Path) -> list[tuple[str, int, int]]:
    """(module, line, number) of each bare command-class number outside the floor."""
    trees = {
        p.relative_to(package).as_posix(): ast.parse(p.read_text("utf-8")) for p in package.rglob("*.py")
    }
    cc_parameters = _cc_parameters(list(trees.values()))
    return sorted(
        {
            (where, number.lineno, number.value)
            for where, tree in trees.items()
            if not where.startswith("zwave/")
            for number in _bare_cc_numbers(tree, cc_parameters)
        }
    )


def test_no_command_class_number_outside_the_floor() -> None:
    bare = [f"{where}:{line}: {number}" for where, line, number in _found(PACKAGE)]
    assert bare == [], "write CC.<NAME> (zwave_mcp/zwave/classes.py) instead"


_CASES = {
    "NAMING_CC = 119": 1,
    "USER_CODE_CC = 0x63": 1,
    "if cc == 38 and prop: pass": 1,
    "if 106 == value.command_class: pass": 1,
    "if cc in (38, 106): pass": 2,
    "blinds = value.get('commandClass') == 106": 1,
    "x = raw['commandClass'] != 50": 1,
    "MULTICAST_CCS = frozenset({37, 38})": 2,
    "_CC_TOPIC_NAMES = {0x20: 'basic', 0x25: 'switch_binary'}\ndef f(cc): return _CC_TOPIC_NAMES.get(cc)": 4,
    "M = frozenset({(91, 'scene'), (43, 'sceneId')})\ndef f(v): return (v.command_class, v.property) in M": 2,
    "N = frozenset({49, 50})\ndef f(v): return v.command_class in N": 2,
    "T = {(37, 'x'): 1}\ndef f(cc, p): return T.get((cc, p))": 1,
    "T = {67: 'setpoint'}\ndef f(v): return T[v.command_class]": 1,
    "d = {'commandClass': 119, 'endpoint': 0}": 1,
    "value = make(command_class=38, endpoint=0)": 1,
    "c = CC(38)": 1,
    "if int(value.get('commandClass', 0)) == 119: pass": 1,
    "USER_CODE = 99": 1,
    "def value_key(cc, endpoint, prop): pass\nk = value_key(51, 0, 'currentColor')": 1,
    "def f(values): return values.get(value_key(51, 0, 'x'))\ndef value_key(cc, e, p): pass": 1,
    "NOTIFICATION = 113\nDOOR_LOCK = 0x62": 2,
    "x = d[(value.command_class, value.property)] if (cc, p) in {(91, 'scene')} else 0": 1,
}

_ORDINARY = [
    "if endpoint == 0: pass",
    "x = value.get('endpoint') == 1",
    "level = 99",
    "if value.property_key in (1, 2): pass",
    "if value.command_class == CC.BASIC: pass",
    "if cc in (CC.BINARY_SWITCH, CC.MULTILEVEL_SWITCH): pass",
    "name = value.command_class_name == 'Basic'",
    "T = {1: 'a'}\ndef f(node_id): return T.get(node_id)",
    "d = {'commandClass': cc, 'nodeId': 5}",
    "TIMEOUT_S = 38",
    "command_class: int = 0",
    "d = {'commandClassVersion': 4}",
    "def value_key(cc, endpoint, prop): pass\nk = value_key(cc, 38, 'currentColor')",
    "_BASIC = {1: 'Controller', 2: 'Static Controller'}",
    "x = {k: v for k, v in d.items() if k in (1, 2)}",
]


def test_the_walk_finds_each_way_a_number_is_written_as_a_command_class() -> None:
    for source, count in _CASES.items():
        assert len(list(_bare_cc_numbers(ast.parse(source)))) == count, source


def test_the_walk_passes_ordinary_numbers() -> None:
    for source in _ORDINARY:
        assert list(_bare_cc_numbers(ast.parse(source))) == [], source
