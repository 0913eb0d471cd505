"""Generated inputs: a mapping in a problem's inputs that stands for numbers drawn on demand.

``x: {generate: normal, shape: [3, 4], scale: 1.0, round: 2, seed: 7}`` is a 3x4 matrix of
normal draws rounded to 2 decimals; ``{generate: integers, low: 2, high: 16, seed: 3}`` is one
whole number from 2 to 16 inclusive (an integers ``shape`` defaults to []). Instance 0 is the
author's own (the statement shows it and the answer is for it); readers practise on instances
1, 2, ... Each input is drawn from its own numpy Generator seeded from (seed, instance, input
name), so a value never depends on the other inputs, their order, or the machine, and a file
keeps the generator, never the numbers.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from attention.errors import EngineInputError, InputProblem
from attention.scalars import is_finite_number, is_integer

GENERATORS: dict[str, tuple[str, ...]] = {
    "normal": ("generate", "shape", "seed", "mean", "scale", "round"),
    "uniform": ("generate", "shape", "seed", "low", "high", "scale", "round"),
    "integers": ("generate", "shape", "seed", "low", "high"),
}
"""Each generator and the keys its mapping may hold (``generate``, ``shape``, ``seed`` required,
but ``integers`` draws one number when ``shape`` is left out, and requires ``low`` and ``high``)."""

DEFAULT_ROUND = 2
"""Decimals kept when ``round`` is not given: numbers a reader can work with by hand."""

MAX_ROUND = 10
MAX_RANK = 3
MAX_GENERATED_ELEMENTS = 2**16
"""Per input: readers practise on many instances, and the verifier checks every one."""

MAX_MAGNITUDE = 1e6
"""Bound on mean, scale, low and high, so every draw stays far from overflow."""

MAX_SEED = 2**32 - 1


def is_generator(value: object) -> bool:
    """Whether an input value is a generator mapping rather than numbers."""
    return isinstance(value, Mapping) and "generate" in value


def is_generated(inputs: object) -> bool:
    """Whether any input of a problem is generated (so it has reader instances)."""
    return isinstance(inputs, Mapping) and any(is_generator(v) for v in inputs.values())


def generated_numbers(inputs: object) -> int:
    """How many numbers a problem's generators draw at one instance, counted from their shapes
    without drawing them (a shape that is not a list of whole numbers counts none: it is
    refused anyway): what a caller bounds across many problems before any is drawn."""
    if not isinstance(inputs, Mapping):
        return 0
    total = 0
    for value in inputs.values():
        shape = value.get("shape", ()) if is_generator(value) else None
        if isinstance(shape, list | tuple) and all(is_integer(n) and n >= 0 for n in shape):
            total += math.prod(int(n) for n in shape)
    return total


def spec_problems(name: str, spec: Mapping[str, Any]) -> list[InputProblem]:
    """Every problem with one generator mapping, each with its path (``inputs.x.shape``)."""
    path = f"inputs.{name}"
    kind = spec.get("generate")
    if kind not in GENERATORS:
        return [
            InputProblem(
                f"{path}.generate",
                f"unknown generator {kind!r}; expected {' or '.join(GENERATORS)}",
            )
        ]
    problems = [
        InputProblem(f"{path}.{key}", f"unknown key for {kind} (allowed: {', '.join(allowed)})")
        for key in spec
        if key not in (allowed := GENERATORS[kind])
    ]

    def add(key: str, message: str) -> None:
        problems.append(InputProblem(f"{path}.{key}", message))

    shape = spec.get("shape", [] if kind == "integers" else None)
    if not isinstance(shape, list) or not all(is_integer(n) and n >= 1 for n in shape):
        add("shape", f"expected a list of positive whole numbers such as [3, 4], got {shape!r}")
    elif len(shape) > MAX_RANK:
        add("shape", f"has {len(shape)} axes; at most {MAX_RANK}")
    elif (size := math.prod(shape)) > MAX_GENERATED_ELEMENTS:
        add("shape", f"has {size} elements, more than the limit of {MAX_GENERATED_ELEMENTS}")
    seed = spec.get("seed")
    if not (is_integer(seed) and 0 <= seed <= MAX_SEED):
        add("seed", f"expected a whole number from 0 to {MAX_SEED}, got {seed!r}")
    rounding = spec.get("round", DEFAULT_ROUND)
    if not (is_integer(rounding) and 0 <= rounding <= MAX_ROUND):
        add("round", f"expected a whole number of decimals from 0 to {MAX_ROUND}, got {rounding!r}")
    if kind == "integers":
        _integer_bounds(spec, add)
    for key in ("mean", "scale") if kind == "integers" else ("mean", "scale", "low", "high"):
        if key in spec and (not is_finite_number(spec[key]) or abs(spec[key]) > MAX_MAGNITUDE):
            add(
                key,
                f"expected a finite number of size at most {MAX_MAGNITUDE:g}, got {spec[key]!r}",
            )
    if "scale" in spec and is_finite_number(spec["scale"]) and spec["scale"] <= 0:
        add("scale", f"must be positive, got {spec['scale']!r}")
    if kind == "uniform":
        bounds = [k for k in ("low", "high") if k in spec]
        if bounds and "scale" in spec:
            add("scale", "give either scale (draws from -scale to scale) or low and high, not both")
        elif len(bounds) == 1:
            missing = "high" if bounds == ["low"] else "low"
            add(missing, f"is required with {bounds[0]}")
        elif (
            bounds
            and all(is_finite_number(spec[k]) for k in bounds)
            and spec["low"] >= spec["high"]
        ):
            add("high", f"must be greater than low ({spec['low']!r}), got {spec['high']!r}")
    return problems


def _integer_bounds(spec: Mapping[str, Any], add: Callable[[str, str], None]) -> None:
    """Whole-number bounds, inclusive: a draw stands for a count such as a length or a width."""
    for key in ("low", "high"):
        if key not in spec:
            add(key, "is required: integers draws whole numbers from low to high inclusive")
        elif not is_integer(spec[key]) or abs(spec[key]) > MAX_MAGNITUDE:
            add(key, f"expected a whole number of size at most {MAX_MAGNITUDE:g}: {spec[key]!r}")
    low, high = spec.get("low"), spec.get("high")
    if is_integer(low) and is_integer(high) and low > high:
        add("high", f"must be at least low ({low!r}), got {high!r}")


def _rng(seed: int, instance: int, name: str) -> np.random.Generator:
    name_key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(instance), name_key]))


def generate(name: str, spec: Mapping[str, Any], instance: int = 0) -> Any:
    """The numbers one valid generator mapping stands for at ``instance``, as nested lists
    (a number for shape []). Call ``spec_problems`` first."""
    rng = _rng(spec["seed"], instance, name)
    shape = tuple(spec.get("shape", ()))
    if spec["generate"] == "integers":
        whole = rng.integers(int(spec["low"]), int(spec["high"]), size=shape, endpoint=True)
        return whole.tolist()
    if spec["generate"] == "normal":
        draw = rng.normal(spec.get("mean", 0.0), spec.get("scale", 1.0), shape)
    elif "low" in spec:
        draw = rng.uniform(spec["low"], spec["high"], shape)
    else:
        scale = spec.get("scale", 1.0)
        draw = rng.uniform(-scale, scale, shape)
    rounded = np.round(draw, spec.get("round", DEFAULT_ROUND)) + 0.0  # + 0.0: no -0.0
    return rounded.tolist()


def expand_checked(
    inputs: Mapping[str, Any], instance: int = 0
) -> tuple[dict[str, Any], list[InputProblem]]:
    """Inputs with every valid generator replaced by its numbers at ``instance``, and the
    problems of the invalid ones (which are left as written)."""
    if not is_integer(instance) or instance < 0:
        return dict(inputs), [
            InputProblem("instance", f"must be a whole number >= 0: {instance!r}")
        ]
    expanded, problems = {}, []
    for name, value in inputs.items():
        if not is_generator(value):
            expanded[name] = value
            continue
        found = spec_problems(str(name), value)
        problems += found
        expanded[name] = value if found else generate(str(name), value, instance)
    return expanded, problems


def expand_inputs(inputs: Mapping[str, Any], instance: int = 0) -> dict[str, Any]:
    """Inputs with generators replaced by their numbers at ``instance`` (0: the author's own).

    Raises ``EngineInputError`` listing every bad generator mapping.
    """
    if not isinstance(inputs, Mapping):
        raise EngineInputError(InputProblem("inputs", "must be a mapping of input names"))
    expanded, problems = expand_checked(inputs, instance)
    if problems:
        raise EngineInputError(problems)
    return expanded
