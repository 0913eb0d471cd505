"""Author SVG: a drawing, never a program.

A figure that is not an SVG at all (not XML, another root, a DOCTYPE or entities, too large)
is refused when saved. Anything else is kept as the author wrote it (so files round-trip) and
sanitised every time it is shown: the drawing is rebuilt from an allowlist of SVG elements and
attributes, so scripts, event handlers, foreignObject, external references and CSS never reach
a reader's page. Authors are told in admin what readers will not see.
"""

import re
import xml.etree.ElementTree as ET

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
URL_FUNC = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)")
XML_NS = "http://www.w3.org/XML/1998/namespace"
MAX_SVG_BYTES = 512 * 1024
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


def _attribute_problem(element: ET.Element, name: str, value: str) -> str | None:
    tag = _local(element.tag)[1]
    ans, attr = _local(name)
    if ans == XML_NS:
        attr = f"xml:{attr}"
    if ans not in ("", XLINK_NS, XML_NS) or attr not in ATTRIBUTES:
        return f"<{tag} {attr}> is not allowed (no event handlers or styles)"
    if attr == "href" and not LOCAL_REF.match(value.strip()):
        return f"<{tag} href={value!r}>: only links inside the drawing (#id)"
    if any(not LOCAL_REF.match(ref) for _, ref in URL_FUNC.findall(value)):
        return f"<{tag} {attr}={value!r}>: only url(#id) references"
    return None


def _parse(source: str) -> tuple[ET.Element | None, str | None]:
    if len(source.encode()) > MAX_SVG_BYTES:
        return None, f"an SVG may be at most {MAX_SVG_BYTES // 1024} KiB"
    if re.search(r"<!DOCTYPE|<!ENTITY", source, re.IGNORECASE):
        return None, "an SVG may not declare a DOCTYPE or entities"
    try:
        root = ET.fromstring(source)
    except ET.ParseError as error:
        return None, f"not well-formed XML: {error}"
    if root.tag != f"{{{SVG_NS}}}svg":
        return None, f'the root element must be <svg xmlns="{SVG_NS}">'
    return root, None


def svg_errors(source: str) -> list[str]:
    """Why the figure is not an SVG drawing at all; empty when it can be shown."""
    _, refusal = _parse(source)
    return [refusal] if refusal else []


def svg_removals(source: str) -> list[str]:
    """What `svg_inline` leaves out of this drawing when it shows it to readers."""
    root, _ = _parse(source)
    if root is None:
        return []
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


def _strip(element: ET.Element) -> None:
    for child in list(element):
        if _element_problem(child):
            element.remove(child)
        else:
            _strip(child)
    for name, value in list(element.attrib.items()):
        if _attribute_problem(element, name, value):
            del element.attrib[name]


def svg_inline(source: str, *, alt: str) -> str:
    """The drawing rebuilt from its allowlisted parts only, labelled with its alt text.

    Empty if the source is not an SVG (validation refuses those at save).
    """
    root, _ = _parse(source)
    if root is None:
        return ""
    _strip(root)
    root.set("role", "img")
    root.set("aria-label", alt)
    root.attrib.pop("aria-labelledby", None)
    return ET.tostring(root, encoding="unicode")
