"""Author SVG: a drawing, never a program.

Figures are checked against an allowlist of SVG elements and attributes when saved, so a
figure that could run code or fetch anything (scripts, event handlers, foreignObject,
external references, CSS) is refused with a reason instead of reaching a reader's page.
"""

import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ELEMENTS = {
    "svg", "g", "defs", "title", "desc", "path", "rect", "circle", "ellipse", "line",
    "polyline", "polygon", "text", "tspan", "marker", "linearGradient", "radialGradient",
    "stop", "clipPath", "symbol", "use", "pattern", "mask",
}
ATTRIBUTES = {
    "id", "class", "viewBox", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy",
    "r", "rx", "ry", "d", "points", "transform", "fill", "fill-opacity", "fill-rule", "stroke",
    "stroke-width", "stroke-opacity", "stroke-linecap", "stroke-linejoin", "stroke-dasharray",
    "opacity", "font-family", "font-size", "font-weight", "font-style", "text-anchor",
    "dominant-baseline", "letter-spacing", "role", "aria-label", "aria-labelledby",
    "aria-describedby", "aria-hidden", "lang", "preserveAspectRatio", "version", "markerWidth",
    "markerHeight", "refX", "refY", "orient", "markerUnits", "offset", "stop-color",
    "stop-opacity", "gradientUnits", "gradientTransform", "patternUnits", "clip-path",
    "clipPathUnits", "marker-start", "marker-mid", "marker-end", "dx", "dy", "rotate",
    "textLength", "lengthAdjust", "vector-effect", "href", "focusable", "xml:space",
}
LOCAL_REF = re.compile(r"^#[A-Za-z_][\w.-]*$")
URL_FUNC = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)")
MAX_SVG_BYTES = 512 * 1024


def _local(name: str) -> tuple[str, str]:
    if name.startswith("{"):
        ns, _, local = name[1:].partition("}")
        return ns, local
    return "", name


def svg_errors(source: str) -> list[str]:
    """Every reason the drawing is refused; empty when it is a plain, self-contained SVG."""
    if len(source.encode()) > MAX_SVG_BYTES:
        return [f"an SVG may be at most {MAX_SVG_BYTES // 1024} KiB"]
    if re.search(r"<!DOCTYPE|<!ENTITY", source, re.IGNORECASE):
        return ["an SVG may not declare a DOCTYPE or entities"]
    try:
        root = ET.fromstring(source)
    except ET.ParseError as error:
        return [f"not well-formed XML: {error}"]
    if root.tag != f"{{{SVG_NS}}}svg":
        return [f'the root element must be <svg xmlns="{SVG_NS}">']
    errors = []
    for element in root.iter():
        ns, tag = _local(element.tag) if isinstance(element.tag, str) else ("", "?")
        if ns != SVG_NS or tag not in ELEMENTS:
            errors.append(f"<{tag}> is not allowed in a figure")
            continue
        for name, value in element.attrib.items():
            ans, attr = _local(name)
            if ans not in ("", XLINK_NS, "http://www.w3.org/XML/1998/namespace") or (
                attr not in ATTRIBUTES
            ):
                errors.append(f"<{tag} {attr}> is not allowed (no event handlers or styles)")
            elif attr == "href" and not LOCAL_REF.match(value.strip()):
                errors.append(f"<{tag} href={value!r}>: only links inside the drawing (#id)")
            elif any(not LOCAL_REF.match(ref) for _, ref in URL_FUNC.findall(value)):
                errors.append(f"<{tag} {attr}={value!r}>: only url(#id) references")
    return errors
