"""Chapter files as YAML text: read safely (YAML 1.2's core schema: its numbers, dates as text,
no other tags; no duplicate keys, no merge keys, aliases counted where they stand) and written
in one canonical form, so export then import then export is stable."""

import math
import re
from typing import Any

import yaml
from django.conf import settings

from attention.tiny import EXACT_FLOATS, NotHeld, float_read

from ..collection import collection_paused
from .errors import FLOAT_LIMIT, TOO_LARGE, ChapterFileError
from .extent import WIDTH, extent_check

MERGE_TAG = "tag:yaml.org,2002:merge"


class _Refused(yaml.constructor.ConstructorError):
    """Valid YAML that is not a chapter's: a tag YAML 1.2's core schema does not have, one on a
    value not written as its type (`!!int 1_000`), or a number float64 cannot hold as written."""


_YAML_TAG = "tag:yaml.org,2002:"


def _shown(tag: str) -> str:
    """A tag as an author writes it: `!!int` for YAML's own, a local tag as written (`!foo`),
    any other verbatim (`!<tag:example.com,2000:x>`)."""
    if tag.startswith(_YAML_TAG):
        return "!!" + tag.removeprefix(_YAML_TAG)
    return tag if tag.startswith("!") else f"!<{tag}>"


class _TooDeep(yaml.YAMLError):
    def __init__(self, mark: Any, limit: int):
        self.problem_mark = mark
        self.problem = f"nested more than {limit} deep (LIMIT_YAML_DEPTH)"


_FAST = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML was built with it: a large chapter file reads about ten times
faster than with the pure-Python parser."""

_OPENS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSES = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _events_check(text: str) -> None:
    """Count nesting on the parser's event stream, which never recurses, so a deep file is
    refused before anything composes it (composing recurses once per level).

    A scalar tagged `!` is refused there too, the one place it is seen: YAML 1.2 makes `! 12`
    and `! "12"` the text 12, but PyYAML and libyaml read the tag as no tag at all, and would
    read both as the number, quotes and all."""
    depth, limit = 0, settings.LIMIT_YAML_DEPTH
    for event in yaml.parse(text, Loader=_FAST):
        if isinstance(event, _OPENS):
            depth += 1
            if depth >= limit:  # its values would sit one level deeper still
                raise _TooDeep(event.start_mark, limit)
        elif isinstance(event, _CLOSES):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent) and event.tag == "!":
            raise _Refused(
                None,
                None,
                "the tag ! is not read on a value: YAML 1.2 makes it text, the parser reads it "
                "untagged; write text in quotes, without the tag",
                event.start_mark,  # type: ignore[arg-type]  # libyaml's Mark, as good as PyYAML's
            )


class _Loader(_FAST):  # type: ignore[misc,valid-type]
    """YAML 1.1 reads 1e-6 as a string; authors mean a number, as YAML 1.2 says.

    A key given twice would silently lose one of its values, so it is refused, and so is a
    merge key (`<<: *name`): YAML 1.2 has none, and merging mappings that merge mappings doubles
    PyYAML's work at each level.
    """

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if not isinstance(node, yaml.MappingNode):  # `!!map x`: PyYAML's refusal, where it stands
            return super().construct_mapping(node, deep=deep)
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == MERGE_TAG:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    "a merge key (<<) is not read (YAML 1.2 has none): write the "
                    "keys out, or give the whole value as an alias (*name)",
                    key_node.start_mark,
                )
            if not isinstance(key_node, yaml.ScalarNode):  # `? [a, b]`: no key of the format is
                raise yaml.constructor.ConstructorError(  # a list or a mapping
                    None,
                    None,
                    "a key must be a plain name, not a list or mapping",
                    key_node.start_mark,
                )
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"the key {key!r} appears twice in one mapping",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _construct_int(loader: Any, node: Any) -> int:
    """An integer as YAML 1.2 writes it (decimal, 0o17, 0x1F), refused past what a float can
    hold, with its line and column: the engine computes in floats, and a 0x... literal of
    thousands of digits would otherwise reach every message that names it."""
    _tag_check(node)
    text = loader.construct_scalar(node)
    try:
        if text.startswith(("0o", "0x")):
            value = int(text[2:], 8 if text[1] == "o" else 16)
        else:
            value = int(text)
    except ValueError:  # a decimal literal past Python's own limit on digits
        value = FLOAT_LIMIT
    if abs(value) >= FLOAT_LIMIT:
        raise yaml.constructor.ConstructorError(None, None, TOO_LARGE, node.start_mark)
    return value


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_BOOL, _NULL = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"
_TIMESTAMP, _VALUE = "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value"
# Values as YAML 1.2's core schema reads them. YAML 1.1 (PyYAML's own) read 010 as 8, 1:30 as
# 90, 1_0 as 10 and 0b11 as 3, so an author's inputs changed without a word; those forms are
# now text, which the file's checks refuse where a number belongs. (1e-6, a string in 1.1, is
# the number authors mean.) So are 1.1's yes, no, on, off (`causal: on` is refused, not read
# as true; `label: no` is the text no). The core schema has no timestamps either:
# `code: 2001-12-14` is text, refused by the code's own rule, not a date no rule expects (nor
# is `=` YAML 1.1's value key).
_Loader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag not in (_INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _VALUE)
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CORE = {
    _NULL: re.compile(r"(?:null|Null|NULL|~|)\Z"),
    _BOOL: re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z"),
    _INT: re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z"),
    _FLOAT: re.compile(
        r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
    ),
}
"""What YAML 1.2's core schema reads as each type: a plain scalar so written is read as it, and
a tagged one (`!!int 12`) must be so written (`_tag_check`). Matched from the start, to the very
end (`$` would also end before a final line break)."""
_Loader.add_implicit_resolver(_NULL, _CORE[_NULL], ["~", "n", "N", ""])  # "": nothing written
_Loader.add_implicit_resolver(_BOOL, _CORE[_BOOL], list("tTfF"))
_Loader.add_implicit_resolver(_INT, _CORE[_INT], list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, _CORE[_FLOAT], list("-+0123456789."))

_WRITTEN = {
    _NULL: (_NULL,),
    _BOOL: (_BOOL,),
    _INT: (_INT,),
    _FLOAT: (_INT, _FLOAT),
}
"""The types whose written forms each tag honours: a float may be written as an integer."""

_FORMS = {
    _NULL: "null as null, Null, NULL, ~ or nothing at all",
    _BOOL: "true or false as true, True, TRUE, false, False or FALSE",
    _INT: "an integer as 12, -3, 0o17 or 0x1F",
    _FLOAT: "a number as 12, -3, 0x1F, 0.5, 1e-6, .inf or .nan",
}


def _tag_check(node: Any) -> None:
    """A tag skips the reading of plain scalars, and PyYAML's constructors read what it tags as
    YAML 1.1 and Python do: `!!int 1_216`, `!!int "١٢١٦"` and `!!float " 1216 "` were 1216,
    and `!!int 20:16` or `!!float 20:16` failed in words that were not the reason; `!!bool yes`
    was true, `!!bool y` a KeyError (a 500), and `!!null x` null. So a tag is honoured only on
    what YAML 1.2's core schema writes as its type, and refused where it stands otherwise; a
    plain scalar, read as its form says, always passes."""
    if isinstance(node, yaml.ScalarNode) and any(
        _CORE[written].match(node.value) for written in _WRITTEN[node.tag]
    ):
        return
    if isinstance(node, yaml.ScalarNode):
        value = node.value if len(node.value) <= 40 else f"{node.value[:37]}..."
        what = repr(value)
    else:
        what = "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"
    raise _Refused(
        None,
        None,
        f"the tag {_shown(node.tag)} does not fit {what}: YAML 1.2 writes {_FORMS[node.tag]}",
        node.start_mark,
    )


_Loader.add_constructor(_INT, _construct_int)


def _construct_float(loader: Any, node: Any) -> float | int:
    """A float as PyYAML reads it (`.inf`, `.nan` and all), except where `float_read` reads it
    otherwise: one written nonzero is never read as 0 (1e-400 is refused where it stands, as
    1e-320 is), a whole number past 2**53 is read as the integer written, and a fraction
    float64 would lose is refused where it stands. One written as an integer (`!!float 0x1F`) is
    that integer, a float where float64 holds it exactly, as `float_read` reads one."""
    _tag_check(node)
    if _CORE[_INT].match(node.value):
        whole = _construct_int(loader, node)
        return float(whole) if abs(whole) < EXACT_FLOATS else whole
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if math.isfinite(value) and value.is_integer():  # 0, or a whole number: written so?
        try:
            return float_read(node.value)
        except NotHeld as error:  # said where it stands
            problem = str(error)
            raise _Refused(None, None, problem, node.start_mark) from error
    return value


_Loader.add_constructor(_FLOAT, _construct_float)


def _construct_checked(loader: Any, node: Any) -> Any:
    """True, false or null, as PyYAML reads them, once `_tag_check` has found them so written."""
    _tag_check(node)
    return yaml.SafeLoader.yaml_constructors[node.tag](loader, node)


_Loader.add_constructor(_BOOL, _construct_checked)
_Loader.add_constructor(_NULL, _construct_checked)

_REFUSED_TAGS = ("binary", "set", "omap", "pairs", "timestamp")
"""PyYAML's safe tags beyond the core schema's: each would hand the checks bytes, a set, pairs
or a date, which no key of the format holds."""


def _refuse_tag(loader: Any, node: Any) -> Any:
    raise _Refused(
        None,
        None,
        f"the tag {_shown(node.tag)} is not allowed: a chapter file holds text, numbers, "
        "true or false, null, lists and mappings",
        node.start_mark,
    )


for _name in _REFUSED_TAGS:
    _Loader.add_constructor(_YAML_TAG + _name, _refuse_tag)
_Loader.add_constructor(None, _refuse_tag)  # any tag PyYAML does not know (`!foo`)


class _Dumper(yaml.SafeDumper):
    pass


_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""What YAML reads as a line break beside \n: kept only when escaped in double quotes (a plain,
quoted or block scalar folds or normalises it, and the text would come back changed)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = '"' if any(b in value for b in _BREAKS) else "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _represent_list(dumper: yaml.SafeDumper, value: list) -> yaml.Node:
    flow = (
        all(
            isinstance(v, int | float | list) and not isinstance(v, bool) or isinstance(v, bool)
            for v in value
        )
        and value != []
        and not any(isinstance(v, dict) for v in value)
    )
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(list, _represent_list)


def load_yaml(text: str) -> Any:
    """The file through libyaml's loader, bounded in size and depth. Its aliases are the same
    value wherever they stand, so building it expands nothing, and what they stand for is
    counted (`extent_check`) before anything walks it."""
    size, limit = len(text.encode()), settings.LIMIT_CHAPTER_FILE_BYTES
    if size > limit:
        raise ChapterFileError(
            [f"file: is {size:,} bytes; at most {limit:,} (LIMIT_CHAPTER_FILE_BYTES)"]
        )
    with collection_paused():
        try:
            _events_check(text)
            document = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "file"
            problem = getattr(error, "problem", None) or str(error)
            if "nesting depth" in problem:  # libyaml's own bound, far past ours: name ours
                problem = f"nested more than {settings.LIMIT_YAML_DEPTH} deep (LIMIT_YAML_DEPTH)"
            said = "" if isinstance(error, _Refused) else "not valid YAML: "
            raise ChapterFileError([f"{where}: {said}{problem}"]) from error
        extent_check(document, where="file")
    return document


def dump_yaml(document: Any, *, sort_keys: bool = False) -> str:
    return yaml.dump(document, Dumper=_Dumper, sort_keys=sort_keys, allow_unicode=True, width=WIDTH)
