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


class _Loader(yaml.SafeLoader):
    """YAML 1.1 reads 1e-6 as a string; authors mean a number, as YAML 1.2 says.

    A key given twice would silently lose one of its values, so it is refused. Nesting is
    counted while the file is composed, so a deep file stops there, never in a RecursionError.
    """

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        if self.depth > settings.LIMIT_YAML_DEPTH:
            raise _TooDeep(self.peek_event().start_mark, settings.LIMIT_YAML_DEPTH)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str | int | float | bool) and key in seen:
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
