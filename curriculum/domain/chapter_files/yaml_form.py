"""Chapter files as YAML text: read safely (YAML 1.2 numbers, no duplicate keys, no alias
bombs) and written in one canonical form, so export then import then export is stable."""

import re
from typing import Any

import yaml
from django.conf import settings

from .errors import ChapterFileError

MAX_VALUES = 5_000_000  # in one file, counting each use of an alias


class _TooDeep(yaml.YAMLError):
    def __init__(self, mark: Any, limit: int):
        self.problem_mark = mark
        self.problem = f"nested more than {limit} deep (LIMIT_YAML_DEPTH)"


_FAST = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML was built with it: a large chapter file reads about ten times
faster than with the pure-Python parser."""

_OPENS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSES = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _depth_check(text: str) -> None:
    """Count nesting on the parser's event stream, which never recurses, so a deep file is
    refused before anything composes it (composing recurses once per level)."""
    depth, limit = 0, settings.LIMIT_YAML_DEPTH
    for event in yaml.parse(text, Loader=_FAST):
        if isinstance(event, _OPENS):
            depth += 1
            if depth >= limit:  # its values would sit one level deeper still
                raise _TooDeep(event.start_mark, limit)
        elif isinstance(event, _CLOSES):
            depth -= 1


class _Loader(_FAST):  # type: ignore[misc,valid-type]
    """YAML 1.1 reads 1e-6 as a string; authors mean a number, as YAML 1.2 says.

    A key given twice would silently lose one of its values, so it is refused.
    """

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):  # `? [a, b]`: no key of the format is
                raise yaml.constructor.ConstructorError(  # a list or a mapping
                    None, None, "a key must be a plain name, not a list or mapping",
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


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$"),
    list("-+0123456789."),
)


class _Dumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
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
    size, limit = len(text.encode()), settings.LIMIT_CHAPTER_FILE_BYTES
    if size > limit:
        raise ChapterFileError(
            [f"file: is {size:,} bytes; at most {limit:,} (LIMIT_CHAPTER_FILE_BYTES)"]
        )
    try:
        _depth_check(text)
        document = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
        _bounded(document)
        return document
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "file"
        problem = getattr(error, "problem", None) or str(error)
        raise ChapterFileError([f"{where}: not valid YAML: {problem}"]) from error


def _bounded(document: Any) -> None:
    """Aliases (`*name`) let a few lines stand for billions of values; refuse such a file before
    anything walks it."""
    stack, count = [document], 0
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise ChapterFileError(
                [f"file: expands to more than {MAX_VALUES:,} values (through aliases, *name)"]
            )
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def dump_yaml(document: Any, *, sort_keys: bool = False) -> str:
    return yaml.dump(document, Dumper=_Dumper, sort_keys=sort_keys, allow_unicode=True, width=100)
