"""Mathematics typeset on the server by KaTeX (pinned in katex/package-lock.json, run by node)
into MathML, which browsers show with no script. Each batch starts at most one node process,
for the formulas no cache knows; typeset formulas are cached by hash."""

import hashlib
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.cache import caches

from .parsing import PREPARED, RENDER_FORMAT, Prepared, formula, formulas, math_tokens, parse

KATEX_DIR = Path(__file__).resolve().parents[3] / "katex"
KATEX_TIMEOUT_SECONDS = 60


class TooManyFormulas(ValueError):
    """More formulas than one chapter or save may typeset (LIMIT_CHAPTER_FORMULAS)."""

    def __init__(self, count: int) -> None:
        limit = settings.LIMIT_CHAPTER_FORMULAS
        self.reason = f"holds {count:,} formulas; at most {limit:,} (LIMIT_CHAPTER_FORMULAS)"
        """What is past the limit, without the advice a chapter's author is given (a book's
        library has no chapter to split)."""
        super().__init__(f"{self.reason}: split the chapter")


class MathTooLarge(TooManyFormulas):
    """Formulas that typeset to more than a page may hold, refused as soon as KaTeX has made
    that much (LIMIT_CHAPTER_HTML_BYTES), the rest never typeset."""

    def __init__(self) -> None:
        self.reason = (
            f"has formulas that render to more than {settings.LIMIT_CHAPTER_HTML_BYTES:,} bytes "
            "of HTML (LIMIT_CHAPTER_HTML_BYTES)"
        )
        ValueError.__init__(self, self.reason)


class MathUnavailable(RuntimeError):
    """KaTeX could not be run (node missing, or scripts/install-katex.sh not yet run)."""


def _limits() -> dict[str, int]:
    """What one formula may cost (settings, LIMIT_FORMULA_*): KaTeX enforces each."""
    return {
        "expand": settings.LIMIT_FORMULA_EXPAND,
        "tokens": settings.LIMIT_FORMULA_TOKENS,
        "chars": settings.LIMIT_FORMULA_CHARS,
        "html": settings.LIMIT_FORMULA_HTML_BYTES,
    }


def render_format() -> str:
    """Cache keys change with the renderer and with the limits it enforces."""
    return f"{RENDER_FORMAT}|{sorted(_limits().items())}"


def _formula_key(formula: tuple[str, bool], form: str) -> str:
    tex, display = formula
    digest = hashlib.sha256(f"{form}|{int(display)}|{tex}".encode()).hexdigest()
    return f"tex:{digest}"


def _katex(batch: list[tuple[str, bool]]) -> list[dict[str, str]]:
    """One node process typesets the whole batch: each result is {"html"} or {"error"}."""
    formulas = [{"tex": tex, "display": display} for tex, display in batch]
    total = settings.LIMIT_CHAPTER_HTML_BYTES  # no page shows more: the rest is not typeset
    payload = json.dumps({"limits": _limits(), "total": total, "formulas": formulas})
    try:
        done = subprocess.run(
            ["node", str(KATEX_DIR / "render.js")],
            input=payload,
            capture_output=True,
            text=True,
            timeout=KATEX_TIMEOUT_SECONDS,
            check=True,
            cwd=KATEX_DIR,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise MathUnavailable(
            f"KaTeX did not run ({error}); run scripts/install-katex.sh"
        ) from error
    return json.loads(done.stdout)


def typeset(batch: list[tuple[str, bool]]) -> dict[tuple[str, bool], dict[str, str]]:
    """Typeset formulas, asking KaTeX only about those neither `math_prepared` nor a cache
    holds."""
    wanted = list(dict.fromkeys(batch))
    context = PREPARED.get()
    prepared = context.typeset if context is not None else {}
    if all(formula in prepared for formula in wanted):
        return {formula: prepared[formula] for formula in wanted}
    form = render_format()
    keys = {formula: _formula_key(formula, form) for formula in wanted}
    found = caches["markup"].get_many(keys.values())
    missing = [formula for formula in wanted if keys[formula] not in found]
    if missing:
        fresh = dict(zip(missing, _katex(missing), strict=True))
        done = {keys[f]: result for f, result in fresh.items() if "unfinished" not in result}
        caches["markup"].set_many(done, timeout=None)
        found.update({keys[f]: UNFINISHED if "unfinished" in r else r for f, r in fresh.items()})
    return {formula: found[keys[formula]] for formula in wanted}


UNFINISHED = {
    "error": "KaTeX parse error: not typeset: the text's formulas render to more "
    "than a page may hold (LIMIT_CHAPTER_HTML_BYTES)"
}


@contextmanager
def math_prepared(sources: list[str]) -> Iterator[None]:
    """Parse each text once and typeset every formula in one KaTeX run (TooManyFormulas past
    LIMIT_CHAPTER_FORMULAS, counted where they stand); keep all of it at hand
    for the checks and renders made inside the block: a cache may keep fewer (local memory culls
    past its entries), and a miss there costs a KaTeX process per text."""
    marked = [source for source in dict.fromkeys(sources) if "$" in source]
    parsed = {source: parse(source) for source in marked}
    found = {
        source: tuple(formula(token) for token in math_tokens(tokens))
        for source, tokens in parsed.items()
    }
    batch = [each for every in found.values() for each in every]
    if len(batch) > settings.LIMIT_CHAPTER_FORMULAS:  # before KaTeX spends a second on them
        raise TooManyFormulas(len(batch))
    results = typeset(batch)
    made = sum(len(results[each].get("html", "")) for each in batch)  # every occurrence
    if made > settings.LIMIT_CHAPTER_HTML_BYTES or any(r is UNFINISHED for r in results.values()):
        raise MathTooLarge()
    token = PREPARED.set(Prepared(results, found, parsed))
    try:
        yield
    finally:
        PREPARED.reset(token)


def _shown(tex: str) -> str:
    return tex if len(tex) <= 80 else f"{tex[:60]}…{tex[-10:]}"


def math_errors(source: str) -> list[str]:
    """Formulas in the text that do not parse, each with its source and KaTeX's reason."""
    found = formulas(source)
    if not found:
        return []
    results = typeset(found)
    return [
        f"formula ${_shown(tex)}$ does not parse: {results[(tex, display)]['error']}"
        for tex, display in dict.fromkeys(found)
        if "error" in results[(tex, display)]
    ]
