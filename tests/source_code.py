"""What the tests that read the product's source share: which string constants of a module are its
docstrings (prose, which may say anything), so a test looks only at the strings its code uses."""

from __future__ import annotations

import ast


def docstring_ids(tree: ast.AST) -> set[int]:
    """The `id`s of the docstring constants in `tree` (a module's, each class's and function's)."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
