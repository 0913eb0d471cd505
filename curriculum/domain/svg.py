"""Author SVG: a drawing, never a program.

A figure that is not an SVG at all (not XML, another root, a DOCTYPE or entities, too large)
is refused when saved. Anything else is kept as the author wrote it (so files round-trip) and
sanitised every time it is shown: the drawing is rebuilt from an allowlist of SVG elements and
attributes, so scripts, event handlers, foreignObject, external references and CSS never reach
a reader's page. Authors are told in admin what readers will not see.
"""

import io
import re
import xml.etree.ElementTree as ET

from django.conf import settings

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ELEMENTS = {
    "svg",
    "g",
    "defs",
    "title",
    "desc",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "marker",
    "linearGradient",
    "radialGradient",
    "stop",
    "clipPath",
    "symbol",
    "use",
    "pattern",
    "mask",
}
ATTRIBUTES = {
    "id",
    "class",
    "viewBox",
    "width",
    "height",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "d",
    "points",
    "transform",
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-dasharray",
    "opacity",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "text-anchor",
    "dominant-baseline",
    "letter-spacing",
    "role",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-hidden",
    "lang",
    "preserveAspectRatio",
    "version",
    "markerWidth",
    "markerHeight",
    "refX",
    "refY",
    "orient",
    "markerUnits",
    "offset",
    "stop-color",
    "stop-opacity",
    "gradientUnits",
    "gradientTransform",
    "patternUnits",
    "clip-path",
    "clipPathUnits",
    "marker-start",
    "marker-mid",
    "marker-end",
    "dx",
    "dy",
    "rotate",
    "textLength",
    "lengthAdjust",
    "vector-effect",
    "href",
    "focusable",
    "xml:space",
}
LOCAL_REF = re.compile(r"^#[A-Za-z_][\w.-]*$")
# Words for people, never read as CSS or a link: "f(x)" in a label is fine.
TEXT_ATTRIBUTES = {"id", "class", "role", "lang", "version", "xml:space", "aria-label"}
TEXT_ATTRIBUTES |= {"aria-labelledby", "aria-describedby", "aria-hidden"}
# Functions a drawing needs, in any attribute; url() only as url(#id), so nothing is fetched.
CALL = re.compile(r"([a-z-]*)\s*\(", re.IGNORECASE)
FUNCTIONS = {"url", "rgb", "rgba", "hsl", "hsla", "matrix", "translate", "scale", "rotate"}
FUNCTIONS |= {"skewx", "skewy"}
LOCAL_URL = re.compile(r"""\s*(['"]?)#[A-Za-z_][\w.-]*\1\s*\)""")
XML_NS = "http://www.w3.org/XML/1998/namespace"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


def _local(name: str) -> tuple[str, str]:
    if name.startswith("{"):
        ns, _, local = name[1:].partition("}")
        return ns, local
    return "", name


def _element_problem(element: ET.Element) -> str | None:
    ns, tag = _local(element.tag) if isinstance(element.tag, str) else ("", "?")
    if ns != SVG_NS or tag not in ELEMENTS:
        return f"<{tag}> is not allowed in a figure"
    return None


def _value_problem(value: str) -> str | None:
    """A value may call only drawing functions, and url() only for #id: nothing external,
    whatever the case; CSS escapes (`\\75 rl(` is `url(`) are refused outright."""
    if "\\" in value:
        return "CSS escapes (\\) are not allowed"
    for call in CALL.finditer(value):
        name = call.group(1).lower()
        if name not in FUNCTIONS:
            return f"only {', '.join(sorted(FUNCTIONS))}() are allowed"
        if name == "url" and not LOCAL_URL.match(value, call.end()):
            return "only url(#id) references"
    return None


def _attribute_problem(element: ET.Element, name: str, value: str) -> str | None:
    tag = _local(element.tag)[1]
    ans, attr = _local(name)
    if ans == XML_NS:
        attr = f"xml:{attr}"
    if ans not in ("", XLINK_NS, XML_NS) or attr not in ATTRIBUTES:
        return f"<{tag} {attr}> is not allowed (no event handlers or styles)"
    if attr == "href" and not LOCAL_REF.match(value.strip()):
        return f"<{tag} href={value!r}>: only links inside the drawing (#id)"
    if attr not in TEXT_ATTRIBUTES and (problem := _value_problem(value)):
        return f"<{tag} {attr}={value!r}>: {problem}"
    return None


def _parse(source: str) -> tuple[ET.Element | None, str | None]:
    """The drawing's tree, read without recursion and given up as soon as it nests too deeply."""
    if len(source.encode()) > settings.LIMIT_SVG_BYTES:
        return None, f"an SVG may be at most {settings.LIMIT_SVG_BYTES // 1024} KiB"
    if re.search(r"<!DOCTYPE|<!ENTITY", source, re.IGNORECASE):
        return None, "an SVG may not declare a DOCTYPE or entities"
    limit, depth, root = settings.LIMIT_SVG_DEPTH, 0, None
    try:
        for event, element in ET.iterparse(io.StringIO(source), events=("start", "end")):
            if event == "end":
                depth -= 1
                continue
            root = element if root is None else root
            depth += 1
            if depth > limit:
                return None, (
                    f"elements are nested more than {limit} deep (LIMIT_SVG_DEPTH); "
                    "flatten the groups"
                )
    except ET.ParseError as error:
        return None, f"not well-formed XML: {error}"
    if root is None or root.tag != f"{{{SVG_NS}}}svg":
        return None, f'the root element must be <svg xmlns="{SVG_NS}">'
    return root, None


def svg_errors(source: str) -> list[str]:
    """Why the figure is not an SVG drawing at all; empty when it can be shown."""
    _, refusal = _parse(source)
    return [refusal] if refusal else []


def svg_removals(source: str) -> list[str]:
    """What `svg_inline` leaves out of this drawing when it shows it to readers (all of it, and
    why, when it breaks a limit set after it was saved)."""
    root, refusal = _parse(source)
    if root is None:
        return [f"the whole drawing: {refusal}"] if refusal else []
    errors = []
    for element in root.iter():
        if problem := _element_problem(element):
            errors.append(problem)
            continue
        errors.extend(
            p
            for name, value in element.attrib.items()
            if (p := _attribute_problem(element, name, value))
        )
    return errors


def _strip(root: ET.Element) -> None:
    """Remove what is not allowlisted, walking the tree with a stack (never recursion)."""
    stack = [root]
    while stack:
        element = stack.pop()
        for child in list(element):
            if _element_problem(child):
                element.remove(child)
            else:
                stack.append(child)
        for name, value in list(element.attrib.items()):
            if _attribute_problem(element, name, value):
                del element.attrib[name]


def svg_inline(source: str, *, alt: str) -> str:
    """The drawing rebuilt from its allowlisted parts only, labelled with its alt text.

    Empty if the source is not an SVG, or breaks a limit (validation refuses those at save;
    one stored before is left out, and admin says why).
    """
    root, _ = _parse(source)
    if root is None:
        return ""
    _strip(root)
    root.set("role", "img")
    root.set("aria-label", alt)
    root.attrib.pop("aria-labelledby", None)
    return ET.tostring(root, encoding="unicode")
