"""A small, safe expression language for what a number in the textbook must equal (a claim).

An author writes ``softmax(scores=s + c).out[0] == exp(1) / (1 + exp(1))``. The text is checked
by ``attention.expression_parse`` against an allowlist and interpreted here node by node; it is
never compiled or run as Python. Free names are read through the caller's ``lookup``, engine
operations go through the registry's ``check`` before ``evaluate``, and all work, numpy's and
the engine's, is charged before it is done to one budget per evaluation, in the units of
``attention.work``, so no expression can run long or build a huge array.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from attention.errors import EngineInputError
from attention.expression_parse import (
    BINARY,
    CONSTANTS,
    FUNCTIONS,
    MAX_CALLS,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_EXPRESSION_CHARS,
    MAX_NODES,
    REDUCTIONS,
    Expression,
    ExpressionError,
    checked,
    choice,
    integer_literal,
    parse,
    segment,
)
from attention.noise import settled
from attention.registry.table import OPERATIONS, check
from attention.registry.table import evaluate as engine_evaluate
from attention.reruns import extended_value
from attention.tiny import EXACT_FLOATS, TOO_SMALL, below_normal, underflow_refused
from attention.work import ELEMENTWISE, PER_CALL, PER_INPUT_NUMBER, evaluation_work

__all__ = ["MAX_CALLS", "MAX_DEPTH", "MAX_EXPRESSION_CHARS", "MAX_EXPRESSION_WORK", "MAX_NODES"]
__all__ += ["Expression", "ExpressionError", "evaluate", "parse", "sides"]

MAX_EXPRESSION_WORK = 10**7
"""Default work budget of one evaluation (``attention.work`` units: some 1 to 10 ms)."""

Lookup = Callable[[str], Any]

_ARITHMETIC: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.divide,
    "**": np.power,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "sum": np.sum,
    "mean": np.mean,
    "var": np.var,
    "std": np.std,
    "max": np.max,
    "min": np.min,
    "transpose": np.transpose,
}
_KEEP_INTEGERS = ("abs", "sum", "max", "min", "transpose")


class _Value:
    """A computed value: float64 numbers, or booleans. ``kind`` "int" means every step kept whole
    numbers, so an engine argument such as ``seq_len=2 * T`` is passed as the int it must be."""

    __slots__ = ("array", "kind")

    def __init__(self, array: np.ndarray, kind: str) -> None:
        self.array = array
        self.kind = kind  # "int", "float" or "bool"


def _shape(array: np.ndarray) -> str:
    return f"shape {tuple(array.shape)}" if array.ndim else "a single number"


def _from_lookup(name: str, raw: object) -> _Value:
    if isinstance(raw, Mapping):
        keys = ", ".join(str(k) for k in list(raw)[:8])
        raise ExpressionError(f"{name!r} is a mapping ({keys}), not numbers")
    try:
        array = np.asarray(raw)
    except (ValueError, TypeError, OverflowError):
        raise ExpressionError(f"{name!r} is not a rectangular array of numbers") from None
    if array.dtype.kind == "b":
        return _Value(array, "bool")
    if array.dtype.kind not in "iuf":
        raise ExpressionError(f"{name!r} is not numbers")
    with np.errstate(all="ignore"):
        numbers = array.astype(np.float64)
    if not np.all(np.isfinite(numbers)):
        raise ExpressionError(f"{name!r} is not finite (NaN or infinity)")
    if below_normal(numbers):
        raise ExpressionError(f"{name!r} holds a number {TOO_SMALL}")
    return _Value(numbers, "int" if array.dtype.kind in "iu" else "float")


def _argument(value: _Value | str) -> Any:
    """An engine input as the registry reads one: nested lists and Python scalars."""
    if isinstance(value, str):
        return value
    array = value.array
    if value.kind == "int" and np.all(np.abs(array) <= EXACT_FLOATS):
        return array.astype(np.int64).tolist()
    return array.tolist()


class _Evaluator:
    """Interprets one checked tree; every evaluation gets its own budget and call count."""

    def __init__(
        self,
        source: str,
        lookup: Lookup,
        known: Iterable[str],
        max_work: int,
        move: Callable[[np.ndarray], np.ndarray] | None = None,
        salt: bytes = b"",
    ) -> None:
        number = isinstance(max_work, (int, float)) and not isinstance(max_work, bool)
        if not (number and math.isfinite(max_work) and max_work >= 0):
            raise ExpressionError(f"max_work must be a number >= 0, got {max_work!r}")
        self.source = source
        self.lookup = lookup
        self.known = tuple(sorted({str(name) for name in known}))
        self.max_work = int(max_work)
        self.left = int(max_work)
        self.calls = 0
        self.read_names: dict[str, _Value] = {}
        self.move = move  # applied to every float number read (attention.expression_reach)
        self.salt = salt  # keys the moves of an engine call's own check (`settled`)

    def show(self, node: ast.AST) -> str:
        return segment(self.source, node)

    def charge(self, units: int, node: ast.AST) -> None:
        if units > self.left:
            raise ExpressionError(
                f"'{self.show(node)}' needs about {units:.3g} units of work, beyond the "
                f"expression's limit of {self.max_work:.3g} ({self.left:.3g} left)"
            )
        self.left -= units

    def finite(self, result: Any, node: ast.AST, kind: str) -> _Value:
        array = np.asarray(result, dtype=np.float64)
        if not np.all(np.isfinite(array)):
            raise ExpressionError(f"'{self.show(node)}' is not finite (NaN or infinity)")
        return self.floats(_Value(array, kind))

    def result(self, node: ast.expr) -> np.ndarray:
        return self.number(node).array

    def number(self, node: ast.expr) -> _Value:
        value = self.value(node)
        if value.kind == "bool":
            raise ExpressionError(f"'{self.show(node)}' is true or false, not a number")
        return value

    def value(self, node: ast.expr) -> _Value:
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, (int, float))
            kind = "int" if type(node.value) is int else "float"
            key = f"{kind}:{node.value!r}"  # a number written twice is read alike
            if key not in self.read_names:
                self.read_names[key] = self.floats(_Value(np.asarray(float(node.value)), kind))
            return self.read_names[key]
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                constant = CONSTANTS[node.id]
                if isinstance(constant, bool):
                    return _Value(np.asarray(constant), "bool")
                return self.floats(_Value(np.asarray(constant, dtype=np.float64), "float"))
            return self.read(node.id)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Call):
                return self.operation(node.value, node.attr)
            assert isinstance(node.value, ast.Name)
            return self.read(f"{node.value.id}.{node.attr}")
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.UnaryOp):
            operand = self.number(node.operand)
            self.charge(ELEMENTWISE * operand.array.size, node)
            negate = isinstance(node.op, ast.USub)
            return _Value(-operand.array if negate else operand.array, operand.kind)
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            if node.func.id in FUNCTIONS:
                return self.function(node, node.func.id)
            return self.operation(node, None)
        if isinstance(node, ast.Subscript):
            return self.index(node)
        if isinstance(node, ast.List):
            return self.list(node)
        raise ExpressionError(f"'{self.show(node)}' is not part of the expression language")

    def read(self, name: str) -> _Value:
        if name not in self.read_names:
            try:
                raw = self.lookup(name)
            except KeyError:
                known = ", ".join(self.known[:30]) + (", ..." if len(self.known) > 30 else "")
                raise ExpressionError(
                    f"unknown name {name!r}" + (f"; known: {known}" if known else "")
                ) from None
            self.read_names[name] = self.floats(_from_lookup(name, raw))
        return self.read_names[name]

    def floats(self, value: _Value) -> _Value:
        """``value`` as read or computed, moved where the caller asks (``move``) unless float64
        holds it exactly: whole numbers below 2**53 (counts, and sums of them). A sum, a product
        and an engine operation move their operands afresh, as their own roundings would."""
        if self.move is None or value.kind == "bool":
            return value
        if value.kind == "int" and not np.any(np.abs(value.array) >= EXACT_FLOATS):
            return value
        return _Value(self.move(value.array), "float")

    def binary(self, node: ast.BinOp) -> _Value:
        op = BINARY[type(node.op)]
        a, b = self.number(node.left), self.number(node.right)
        if op == "@":
            return self.matmul(a, b, node)
        try:
            shape = np.broadcast_shapes(a.array.shape, b.array.shape)
        except ValueError:
            raise ExpressionError(
                f"'{self.show(node)}': {_shape(a.array)} and {_shape(b.array)} do not broadcast"
            ) from None
        self.charge(ELEMENTWISE * math.prod(shape), node)
        whole = a.kind == b.kind == "int" and op != "/"
        if op == "**":
            if b.array.size and np.max(np.abs(b.array)) > MAX_EXPONENT:
                raise ExpressionError(
                    f"'{self.show(node)}': an exponent may be at most {MAX_EXPONENT} in size"
                )
            whole = whole and bool(np.all(b.array >= 0))
        with underflow_refused(self.show(node)):
            result = _ARITHMETIC[op](a.array, b.array)
        return self.finite(result, node, "int" if whole else "float")

    def matmul(self, a: _Value, b: _Value, node: ast.BinOp) -> _Value:
        x, y = self.floats(a).array, self.floats(b).array  # every product rounds
        if x.ndim == 0 or y.ndim == 0:
            raise ExpressionError(
                f"'{self.show(node)}': @ multiplies vectors and matrices, "
                f"not {_shape(x)} and {_shape(y)}"
            )
        rows, inner = (x.shape[-2] if x.ndim > 1 else 1), x.shape[-1]
        other, cols = (y.shape[-2], y.shape[-1]) if y.ndim > 1 else (y.shape[0], 1)
        try:
            if inner != other:
                raise ValueError
            batch = math.prod(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
        except ValueError:
            raise ExpressionError(
                f"'{self.show(node)}': {_shape(x)} and {_shape(y)} do not fit for @"
            ) from None
        self.charge(batch * rows * cols * (2 * inner + ELEMENTWISE), node)
        kind = "int" if a.kind == b.kind == "int" else "float"
        with underflow_refused(self.show(node)):
            return self.finite(np.matmul(x, y), node, kind)

    def function(self, node: ast.Call, name: str) -> _Value:
        value = self.number(node.args[0])
        x = value.array
        if name in REDUCTIONS:  # each addend rounds, and so do whole numbers past 2**53 in all
            large = value.kind == "int" and np.sum(np.abs(x)) >= EXACT_FLOATS
            x = self.floats(_Value(x, "float") if large else value).array
        axes = [integer_literal(k.value) for k in node.keywords if k.arg == "axis"]
        axis = axes[0] if axes else None
        if axis is not None and not -x.ndim <= axis < x.ndim:
            raise ExpressionError(
                f"'{self.show(node)}': axis {axis} is out of range for {_shape(x)}"
            )
        if name in REDUCTIONS and name != "sum" and x.size == 0:
            raise ExpressionError(f"'{self.show(node)}': {name} of an empty value")
        passes = 3 if name in ("var", "std") else 1
        self.charge(ELEMENTWISE * passes * max(x.size, 1), node)
        kwargs = {} if name not in REDUCTIONS else {"axis": axis}
        with underflow_refused(self.show(node)):
            result = _FUNCTIONS[name](x, **kwargs)
        return self.finite(result, node, value.kind if name in _KEEP_INTEGERS else "float")

    def index(self, node: ast.Subscript) -> _Value:
        value = self.value(node.value)
        x = value.array
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > x.ndim:
            count = f"{len(items)} {'index' if len(items) == 1 else 'indices'}"
            raise ExpressionError(f"'{self.show(node)}': {count} for {_shape(x)}")
        key: list[int | slice] = []
        for axis, item in enumerate(items):
            if isinstance(item, ast.Slice):
                bounds = (item.lower, item.upper, item.step)
                key.append(slice(*(None if b is None else integer_literal(b) for b in bounds)))
                continue
            at, length = integer_literal(item), x.shape[axis]
            assert at is not None
            if not -length <= at < length:
                raise ExpressionError(
                    f"'{self.show(node)}': index {at} is out of range for axis {axis} of "
                    f"{_shape(x)}"
                )
            key.append(at)
        try:
            return _Value(np.asarray(x[tuple(key)]), value.kind)
        except (IndexError, OverflowError, ValueError):  # a slice bound past any index size
            raise ExpressionError(f"'{self.show(node)}': cannot index {_shape(x)} so") from None

    def list(self, node: ast.List) -> _Value:
        items = [self.value(item) for item in node.elts]
        if not items:
            return _Value(np.zeros(0), "float")
        kinds = {item.kind for item in items}
        if "bool" in kinds and len(kinds) > 1:
            raise ExpressionError(f"'{self.show(node)}' mixes true or false with numbers")
        shapes = sorted({item.array.shape for item in items})
        if len(shapes) > 1:
            raise ExpressionError(
                f"'{self.show(node)}': its items have different shapes "
                f"({', '.join(str(s) for s in shapes)})"
            )
        self.charge(ELEMENTWISE * sum(item.array.size for item in items), node)
        kind = "bool" if kinds == {"bool"} else "int" if kinds == {"int"} else "float"
        return _Value(np.stack([item.array for item in items]), kind)

    def operation(self, node: ast.Call, output: str | None) -> _Value:
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        op = OPERATIONS[name]
        ask = {"output": output or op.outputs[0]}
        values: dict[str, _Value | str] = {}
        for keyword in node.keywords:
            assert keyword.arg is not None
            chosen = choice(op, keyword)
            values[keyword.arg] = chosen if chosen is not None else self.value(keyword.value)
        self.calls += 1
        if self.calls > MAX_CALLS:
            raise ExpressionError(f"the expression calls the engine more than {MAX_CALLS} times")
        numbers = sum(v.array.size for v in values.values() if isinstance(v, _Value))
        if ELEMENTWISE * PER_INPUT_NUMBER * numbers > self.left:  # before any list is built
            self.charge(ELEMENTWISE * PER_INPUT_NUMBER * numbers, node)
        inputs = {
            key: _argument(value if isinstance(value, str) else self.floats(value))
            for key, value in values.items()
        }
        problems = check(name, inputs, ask)
        if problems:
            raise ExpressionError(f"{name}(...): " + "; ".join(str(p) for p in problems))
        work = evaluation_work(name, inputs)
        if work is None:
            raise ExpressionError(f"{name}(...): the engine cannot estimate its work")
        self.charge(work + PER_CALL, node)
        try:  # in extended precision, as answers are held (2^30 * (2^30 + 1) - 2^60 is 2^30,
            # and float64 leaves 0); a moved run measures what reading moves in it
            # an operation's own steps may underflow harmlessly (rms_norm squares 1e151): its
            # value is refused below float64's normal range where it is held (`settled`), as
            # a problem's is, not on the underflow of a step
            widened = extended_value(name, inputs, ask) if self.move else None
            result = engine_evaluate(name, inputs, ask) if widened is None else widened
            if self.move is None and not isinstance(result, dict):
                result = settled(name, inputs, ask, result, 0, self.salt)[0]
        except (EngineInputError, ArithmeticError, ValueError) as error:
            raise ExpressionError(f"{name}(...): {error}") from None
        if isinstance(result, dict):
            raise ExpressionError(
                f"{name}(...).{ask['output']} is a mapping of {', '.join(result)}; "
                f"select one, e.g. {name}(...).{next(iter(result), 'flops')}"
            )
        array = np.asarray(result)
        if array.dtype == np.longdouble:
            array = array.astype(np.float64)
        if array.dtype.kind == "b":
            return _Value(array, "bool")
        return self.finite(array, node, "int" if array.dtype.kind in "iu" else "float")


def _start(
    expr: Expression | str,
    lookup: Lookup,
    known: Iterable[str],
    max_work: int,
    move: Callable[[np.ndarray], np.ndarray] | None = None,
    salt: bytes = b"",
) -> tuple[ast.expr, Expression, _Evaluator]:
    text = expr.text if isinstance(expr, Expression) else expr
    body, source, summary = checked(text)  # read again: an Expression is only a summary
    return body, summary, _Evaluator(source, lookup, known, max_work, move, salt)


def evaluate(
    expr: Expression | str,
    lookup: Lookup,
    *,
    known: Iterable[str] = (),
    max_work: int = MAX_EXPRESSION_WORK,
    move: Callable[[np.ndarray], np.ndarray] | None = None,
    salt: bytes = b"",
) -> np.ndarray:
    """The value of a plain expression as float64 (0-d for a number); ``lookup`` gives each free
    name's value and raises KeyError for an unknown one, ``known`` names them for the message.
    ``move`` changes every float number read (`attention.expression_reach`); ``salt`` keys the
    moves that check an engine call's value (`attention.settled`: a server's secret)."""
    body, summary, evaluator = _start(expr, lookup, known, max_work, move, salt)
    if summary.relation is not None:
        raise ExpressionError(
            f"'{summary.text}' is a relation ({summary.relation}), not a value to compute"
        )
    return evaluator.result(body)


def sides(
    expr: Expression | str,
    lookup: Lookup,
    *,
    known: Iterable[str] = (),
    max_work: int = MAX_EXPRESSION_WORK,
    move: Callable[[np.ndarray], np.ndarray] | None = None,
    salt: bytes = b"",
) -> tuple[np.ndarray, np.ndarray]:
    """Both sides of a relation, on one budget (the rest as `evaluate`); then `holds`."""
    body, summary, evaluator = _start(expr, lookup, known, max_work, move, salt)
    if summary.relation is None or not isinstance(body, ast.Compare):
        raise ExpressionError(
            f"'{summary.text}' is a value, not a relation; write it as e.g. 'x == 1'"
        )
    left, right = evaluator.result(body.left), evaluator.result(body.comparators[0])
    try:
        np.broadcast_shapes(left.shape, right.shape)
    except ValueError:
        raise ExpressionError(
            f"the two sides ({_shape(left)} and {_shape(right)}) do not broadcast"
        ) from None
    return left, right
