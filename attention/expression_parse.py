"""Reading an author's expression: checked against an allowlist, never run as Python.

``ast.parse`` only builds a tree; nothing here compiles or runs it. The text's length and bracket
nesting are bounded before the parser sees it (so hostile nesting cannot reach the parser's
recursion), then every node, function, name and keyword is checked here, once, so the
interpreter in ``attention.expressions`` only ever walks a small tree of known shapes.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from attention.errors import ExpressionError
from attention.registry.operation import Operation
from attention.registry.table import OPERATIONS
from attention.tiny import TOO_SMALL, below_normal

DECIMAL = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
"""A number as an expression writes it (a sign is an operator)."""

MAX_EXPRESSION_CHARS = 400
"""Longest expression text: a claim is a line an author writes, not a program."""

MAX_DEPTH = 20
"""Deepest bracket nesting, counted on the raw text before it is parsed."""

MAX_TREE_DEPTH = 64
"""Deepest operator nesting of the parsed tree (a chain a + b + c + ... counts each +)."""

MAX_NODES = 200
"""Most expression nodes (names, numbers, operators, calls...) of one expression."""

MAX_CALLS = 16
"""Most engine operation calls one evaluation may make."""

MAX_EXPONENT = 64
"""Largest |exponent| of ``**``, so a power cannot explode before it is found not finite."""

CONSTANTS: dict[str, float | bool] = {"e": math.e, "pi": math.pi, "true": True, "false": False}
"""Reserved names: a lookup is never asked for these."""

ELEMENTWISE = ("exp", "log", "sqrt", "abs")
REDUCTIONS = ("sum", "mean", "var", "std", "max", "min")
FUNCTIONS = (*ELEMENTWISE, *REDUCTIONS, "transpose")
"""The numpy functions an expression may call, each on one value (reductions take ``axis=``)."""

RELATIONS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.LtE: "<=",
    ast.Lt: "<",
    ast.GtE: ">=",
    ast.Gt: ">",
}
BINARY: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
    ast.MatMult: "@",
}

_REFUSED: dict[type[ast.AST], str] = {
    ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.JoinedStr: "text in quotes",
    ast.BoolOp: "and / or",
    ast.IfExp: "if / else",
    ast.Dict: "a {...} mapping",
    ast.Set: "a {...} set",
    ast.Tuple: "a tuple (a, b) outside an index",
    ast.Starred: "*unpacking",
    ast.NamedExpr: ":= assignment",
}


@dataclass(frozen=True)
class Expression:
    """A parsed expression; ``evaluate`` reads ``text`` again, so only checked text is run."""

    text: str
    names: frozenset[str]
    operations: tuple[str, ...]
    relation: str | None


def choice(op: Operation, keyword: ast.keyword) -> str | None:
    """The name an author gave a ``choice`` parameter bare (``activation=relu``), else None:
    the language has no strings, so a listed choice is written as a name."""
    param = op.parameter(keyword.arg or "")
    value = keyword.value
    if param is not None and param.kind == "choice" and isinstance(value, ast.Name):
        return value.id if value.id in param.choices else None
    return None


def integer_literal(node: ast.expr) -> int | None:
    """An index or axis as written: an integer literal, possibly signed; None for anything else."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def segment(text: str, node: ast.AST) -> str:
    """The part of ``text`` a node was read from, shortened, to name it in a message."""
    part = ast.get_source_segment(text, node) or type(node).__name__
    return part if len(part) <= 40 else part[:37] + "..."


def _prepare(text: object) -> str:
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, got {type(text).__name__}")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(
            f"the expression has {len(text)} characters; at most {MAX_EXPRESSION_CHARS}"
        )
    if "#" in text:
        raise ExpressionError("'#' is not part of the expression language")
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(depth - 1, 0)
    if deepest > MAX_DEPTH:
        raise ExpressionError(f"brackets are nested {deepest} deep; at most {MAX_DEPTH}")
    stripped = " ".join(text.split())  # a claim may be wrapped over lines
    if not stripped:
        raise ExpressionError("the expression is empty")
    return stripped


class _Reader:
    """One pass over the tree that refuses anything outside the grammar and notes what it uses."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.names: list[str] = []
        self.operations: list[str] = []

    def show(self, node: ast.AST) -> str:
        return segment(self.text, node)

    def refuse(self, node: ast.AST) -> ExpressionError:
        what = _REFUSED.get(type(node), type(node).__name__)
        return ExpressionError(f"'{self.show(node)}': {what} is not part of the language")

    def name(self, node: ast.Name | ast.Attribute) -> str:
        parts = [node.attr] if isinstance(node, ast.Attribute) else []
        base = node.value if isinstance(node, ast.Attribute) else node
        if not isinstance(base, ast.Name):
            raise ExpressionError(
                f"'{self.show(node)}': a '.' may follow only a name (inputs.q) "
                "or an operation call (softmax(...).out)"
            )
        dotted = ".".join([base.id, *parts])
        if any(part.startswith("_") for part in dotted.split(".")):
            raise ExpressionError(f"'{dotted}': names may not start with '_'")
        if parts and base.id in CONSTANTS:
            raise ExpressionError(f"'{dotted}': {base.id} is a constant and has no parts")
        return dotted

    def expr(self, node: ast.expr, depth: int) -> None:
        if depth > MAX_TREE_DEPTH:
            raise ExpressionError(f"the expression nests more than {MAX_TREE_DEPTH} deep")
        depth += 1
        if isinstance(node, ast.Constant):
            self.constant(node)
        elif isinstance(node, ast.Name):
            if (dotted := self.name(node)) not in CONSTANTS:
                self.names.append(dotted)
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Call):
                self.call(node.value, depth, node.attr)
            else:
                self.names.append(self.name(node))
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in BINARY:
                raise ExpressionError(
                    f"'{self.show(node)}': only the operators + - * / ** @ are allowed"
                )
            self.expr(node.left, depth)
            self.expr(node.right, depth)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise ExpressionError(f"'{self.show(node)}': only - and + may precede a value")
            self.expr(node.operand, depth)
        elif isinstance(node, ast.Call):
            self.call(node, depth, None)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value, depth)
            self.subscript(node)
        elif isinstance(node, ast.List):
            for item in node.elts:
                self.expr(item, depth)
        elif isinstance(node, ast.Compare):
            raise ExpressionError(
                f"'{self.show(node)}': a relation (==, <=, <, >=, >) may appear only once, "
                "at the top of the expression"
            )
        else:
            raise self.refuse(node)

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            raise ExpressionError(f"write {str(value).lower()}, not {value}")
        if not isinstance(value, (int, float)):
            what = "text in quotes" if isinstance(value, (str, bytes)) else repr(value)
            raise ExpressionError(f"{what} is not part of the expression language")
        written = self.show(node)
        if not DECIMAL.fullmatch(written):  # 0x10, 1_000: no number a chapter file writes
            raise ExpressionError(f"write {written} with digits, a point and an exponent alone")
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise ExpressionError(f"the number {written} is too large")
        read_as_zero = value == 0 and float(written.lower().partition("e")[0]) != 0  # 1e-400
        if read_as_zero or below_normal(value):
            raise ExpressionError(f"the number {written} is {TOO_SMALL}; scale the numbers up")

    def subscript(self, node: ast.Subscript) -> None:
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for item in items:
            if isinstance(item, ast.Slice):
                parts = [p for p in (item.lower, item.upper, item.step) if p is not None]
                if any(integer_literal(p) is None for p in parts):
                    raise ExpressionError(
                        f"'{self.show(node)}': slice bounds must be whole numbers as written"
                    )
                if item.step is not None and integer_literal(item.step) == 0:
                    raise ExpressionError(f"'{self.show(node)}': a slice step cannot be 0")
            elif integer_literal(item) is None:
                raise ExpressionError(
                    f"'{self.show(node)}': an index must be a whole number as written "
                    "(x[1, 0], x[-1], x[:, 0])"
                )

    def call(self, node: ast.Call, depth: int, output: str | None) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else self.show(func)
        if name in FUNCTIONS and isinstance(func, ast.Name):
            if output is not None:
                raise ExpressionError(f"{name}(...) has no outputs to select with .{output}")
            self.function(node, name, depth)
            return
        op = OPERATIONS.get(name) if isinstance(func, ast.Name) else None
        if op is None:
            raise ExpressionError(
                f"unknown function '{name}'; allowed: {', '.join(FUNCTIONS)}, "
                f"or an engine operation ({', '.join(OPERATIONS)})"
            )
        if node.args:
            raise ExpressionError(
                f"{name}(...) takes keyword arguments only, "
                f"e.g. {name}({op.parameters[0].name}=...)"
            )
        for keyword in node.keywords:
            if keyword.arg is None or op.parameter(keyword.arg) is None:
                given = "**" if keyword.arg is None else keyword.arg
                raise ExpressionError(
                    f"{name}(...): unknown argument {given!r}; "
                    f"expected {', '.join(p.name for p in op.parameters)}"
                )
            param = op.parameter(keyword.arg)
            if param is not None and param.kind == "choice":
                if choice(op, keyword) is None:
                    raise ExpressionError(
                        f"{name}(...): {keyword.arg} must be one of {', '.join(param.choices)}, "
                        f"written bare ({keyword.arg}={param.choices[0]})"
                    )
            else:
                self.expr(keyword.value, depth)
        if output is None and len(op.outputs) > 1:
            raise ExpressionError(
                f"{name}(...) has outputs {', '.join(op.outputs)}; select one, "
                f"e.g. {name}(...).{op.outputs[0]}"
            )
        if output is not None and output not in op.outputs:
            raise ExpressionError(
                f"{name}(...) has no output {output!r}; expected one of {', '.join(op.outputs)}"
            )
        self.operations.append(name)
        if len(self.operations) > MAX_CALLS:
            raise ExpressionError(f"the expression calls the engine more than {MAX_CALLS} times")

    def function(self, node: ast.Call, name: str, depth: int) -> None:
        if len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise ExpressionError(f"{name}(...) takes exactly one value, e.g. {name}(x)")
        for keyword in node.keywords:
            if keyword.arg != "axis" or name not in REDUCTIONS:
                given = "**" if keyword.arg is None else keyword.arg
                allowed = "only axis=" if name in REDUCTIONS else "none"
                raise ExpressionError(
                    f"{name}(...): unknown argument {given!r}; keyword arguments: {allowed}"
                )
            if integer_literal(keyword.value) is None:
                raise ExpressionError(f"{name}(...): axis must be a whole number as written")
        self.expr(node.args[0], depth)


def checked(text: str) -> tuple[ast.expr, str, Expression]:
    """The checked tree of ``text`` (a top-level relation is an ``ast.Compare``), the source its
    positions refer to (``text`` with its whitespace joined) and its summary."""
    source = _prepare(text)
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        message = getattr(error, "msg", None) or str(error) or type(error).__name__
        raise ExpressionError(f"cannot read the expression: {message}") from None
    nodes = sum(isinstance(n, (ast.expr, ast.keyword)) for n in ast.walk(tree))
    if nodes > MAX_NODES:
        raise ExpressionError(f"the expression has {nodes} parts; at most {MAX_NODES}")
    reader = _Reader(source)
    body, relation = tree.body, None
    if isinstance(body, ast.Compare):
        if len(body.ops) != 1 or type(body.ops[0]) not in RELATIONS:
            raise ExpressionError(
                f"'{reader.show(body)}': write one relation, one of {', '.join(RELATIONS.values())}"
            )
        relation = RELATIONS[type(body.ops[0])]
        reader.expr(body.left, 1)
        reader.expr(body.comparators[0], 1)
    else:
        reader.expr(body, 1)
    summary = Expression(text, frozenset(reader.names), tuple(reader.operations), relation)
    return body, source, summary


def parse(text: str) -> Expression:
    """Check ``text`` without computing anything: every problem is raised as ExpressionError."""
    return checked(text)[2]
