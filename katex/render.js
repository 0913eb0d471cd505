// TeX to MathML for the curriculum site, one batch per process.
// stdin:  {"limits": {"expand", "tokens", "chars", "html"}, "total": bytes,
//          "formulas": [{"tex", "display"}, ...]}
// stdout: [{"html": "<span class=\"katex\"><math ...>"} | {"error": "KaTeX parse error: ..."}
//          | {"unfinished": true} (past `total` bytes made by the batch), ...]
// Nothing is trusted: \href, \url, \includegraphics and \html* are refused (KaTeX would show
// them as red source), so is numbering an equation by hand (\tag, \label), and sizes are bounded: the
// limits (curriculum/settings.py, LIMIT_FORMULA_*) cap macro expansions (KaTeX's maxExpand),
// the tokens macros may produce (counted before they are built), the TeX and the MathML.
"use strict";

const katex = require("katex");

const OPTIONS = {
  output: "mathml",
  throwOnError: true,
  strict: "ignore",
  maxSize: 3, // em: a \rule or \kern can never cover the text around it
};
const SIZE_ATTRIBUTE = /\b(?:width|height|depth|lspace|rspace|voffset)="-?[0-9.]+em"/g;
const GUARD = "\\curriculumTokenGuard";
// The project numbers equations itself: a macro of the same name refuses each way an author
// could number one, however reached; the number a labelled equation reads is set by
// NUMBER_MACRO, which curriculum/domain/markup/parsing.py's EQUATION_NUMBER names and
// domain/references.py writes after the equation's TeX (an author's own use is refused there).
const NUMBER_MACRO = "\\curriculumEquationNumber";
const NUMBERING = {
  ...Object.fromEntries(["\\tag", "\\tag@paren", "\\tag@literal", "\\label"].map((name) => [
    name,
    () => {
      throw new katex.ParseError(
        `${name} is not supported: label the equation $$ ... $$ (label) and refer to it as ` +
          "@eq:label",
      );
    },
  ])),
  [NUMBER_MACRO]: "\\gdef\\df@tag{\\text{(#1)}}", // what KaTeX's own \tag{n} expands to
};

// MathML Core (Chromium) draws mathvariant="normal" only; bold, double-struck, script and
// the rest must be the Unicode Mathematical Alphanumeric characters themselves.
// [capital A, small a, digit 0, capital Alpha] of each variant; 0 where Unicode has none.
const ALPHANUMERIC = {
  "bold": [0x1d400, 0x1d41a, 0x1d7ce, 0x1d6a8],
  "italic": [0x1d434, 0x1d44e, 0, 0x1d6e2],
  "bold-italic": [0x1d468, 0x1d482, 0, 0x1d71c],
  "script": [0x1d49c, 0x1d4b6, 0, 0],
  "bold-script": [0x1d4d0, 0x1d4ea, 0, 0],
  "fraktur": [0x1d504, 0x1d51e, 0, 0],
  "bold-fraktur": [0x1d56c, 0x1d586, 0, 0],
  "double-struck": [0x1d538, 0x1d552, 0x1d7d8, 0],
  "sans-serif": [0x1d5a0, 0x1d5ba, 0x1d7e2, 0],
  "bold-sans-serif": [0x1d5d4, 0x1d5ee, 0x1d7ec, 0x1d756],
  "sans-serif-italic": [0x1d608, 0x1d622, 0, 0],
  "sans-serif-bold-italic": [0x1d63c, 0x1d656, 0, 0x1d790],
  "monospace": [0x1d670, 0x1d68a, 0x1d7f6, 0],
};
// Letters Unicode had already encoded elsewhere (the "holes" of the alphanumeric block).
const HOLES = {
  "italic": { h: 0x210e },
  "script": { B: 0x212c, E: 0x2130, F: 0x2131, H: 0x210b, I: 0x2110, L: 0x2112, M: 0x2133,
    R: 0x211b, e: 0x212f, g: 0x210a, o: 0x2134 },
  "fraktur": { C: 0x212d, H: 0x210c, I: 0x2111, R: 0x211c, Z: 0x2128 },
  "double-struck": { C: 0x2102, H: 0x210d, N: 0x2115, P: 0x2119, Q: 0x211a, R: 0x211d,
    Z: 0x2124 },
};

function alphanumeric(variant, ch) {
  const [capital, small, digit, greek] = ALPHANUMERIC[variant];
  const hole = (HOLES[variant] || {})[ch];
  const code = ch.codePointAt(0);
  if (hole) return String.fromCodePoint(hole);
  if (ch >= "A" && ch <= "Z") return String.fromCodePoint(capital + code - 0x41);
  if (ch >= "a" && ch <= "z") return String.fromCodePoint(small + code - 0x61);
  if (digit && ch >= "0" && ch <= "9") return String.fromCodePoint(digit + code - 0x30);
  if (greek && code >= 0x391 && code <= 0x3a9) return String.fromCodePoint(greek + code - 0x391);
  if (greek && code >= 0x3b1 && code <= 0x3c9) {
    return String.fromCodePoint(greek + 0x1a + code - 0x3b1);
  }
  return ch;
}

function mathvariants(mathml) {
  return mathml.replace(
    /<(mi|mn) mathvariant="([a-z-]+)">([^<]*)<\/\1>/g,
    (whole, tag, variant, text) => {
      if (!(variant in ALPHANUMERIC) || text.includes("&")) return whole;
      return `<${tag}>${[...text].map((ch) => alphanumeric(variant, ch)).join("")}</${tag}>`;
    },
  );
}

// A macro's expansion is its body with each #n replaced by the argument: counted before
// KaTeX builds it, so `\def\d#1{#1#1...}\d{\d{...}}` stops at the budget, not after gigabytes.
function tokenGuard(budget) {
  return (gullet) => {
    const getExpansion = gullet._getExpansion.bind(gullet);
    const consumeArgs = gullet.consumeArgs.bind(gullet);
    let pending = null;
    let produced = 0;
    gullet._getExpansion = (name) => {
      pending = null;
      const expansion = getExpansion(name);
      pending = expansion && !expansion.unexpandable ? expansion : null;
      return expansion;
    };
    gullet.consumeArgs = (numArgs, delimiters) => {
      const expansion = pending;
      pending = null;
      const args = consumeArgs(numArgs, delimiters);
      if (expansion && Array.isArray(expansion.tokens)) {
        const body = expansion.tokens;
        produced += body.length;
        for (let i = 1; i < body.length; i++) {
          if (body[i].text === "#" && /^[1-9]$/.test(body[i - 1].text)) {
            produced += (args[+body[i - 1].text - 1] || []).length;
          }
        }
      }
      if (produced > budget) {
        throw new katex.ParseError(
          `macros expand to more than ${budget} tokens (LIMIT_FORMULA_TOKENS)`,
        );
      }
      return args;
    };
    return "";
  };
}

const ANNOTATION = '<annotation encoding="application/x-tex">';

function render(source, display, limits, guarded) {
  const macros = { ...NUMBERING }; // a copy each time: \gdef writes into it
  if (guarded) macros[GUARD] = tokenGuard(limits.tokens);
  const untrusted = [];
  const html = katex.renderToString(guarded ? `${GUARD} ${source}` : source, {
    ...OPTIONS,
    maxExpand: limits.expand,
    macros,
    displayMode: !!display,
    trust: ({ command }) => {
      untrusted.push(command);
      return false;
    },
  });
  if (untrusted.length) {
    // KaTeX would show the command as red source text; readers never see TeX
    throw new katex.ParseError(
      `${untrusted[0]} is not supported in a formula (nothing in one is trusted): write links and ` +
        "images in Markdown, outside it",
    );
  }
  // the TeX a reader copies (and assistive tools read) is the author's, without the guard
  return guarded ? html.replace(`${ANNOTATION}${GUARD} `, ANNOTATION) : html;
}

function typeset({ tex, display }, limits) {
  const source = String(tex);
  if (source.length > limits.chars) {
    return {
      error: `KaTeX parse error: formula longer than ${limits.chars} characters ` +
        "(LIMIT_FORMULA_CHARS)",
    };
  }
  let html;
  try {
    html = mathvariants(render(source, display, limits, true));
  } catch (error) {
    if (error instanceof katex.ParseError && /LIMIT_FORMULA_TOKENS/.test(error.message)) {
      return { error: error.message };
    }
    try {
      // within the budget: the same parse without the guard, so positions match the author's
      render(source, display, limits, false);
    } catch (plain) {
      return describe(plain, limits);
    }
    return describe(error, limits);
  }
  const far = (html.match(SIZE_ATTRIBUTE) || []).find(
    (found) => Math.abs(parseFloat(found.split('"')[1])) > OPTIONS.maxSize,
  );
  if (far) {
    // maxSize caps a \rule's size, not a negative space nor a raise: \hspace{-1000em} or
    // \raisebox{50em} would move the formula over the text around it
    return {
      error: `KaTeX parse error: a space or shift of ${far.split('"')[1]} is past ` +
        `${OPTIONS.maxSize}em either way: a formula never moves over the text around it`,
    };
  }
  const size = Buffer.byteLength(html);
  if (size > limits.html) {
    return {
      error: `KaTeX parse error: formula renders to ${size} bytes, more than ${limits.html} ` +
        "(LIMIT_FORMULA_HTML_BYTES)",
    };
  }
  return { html };
}

function describe(error, limits) {
  if (error instanceof katex.ParseError && /Too many expansions/.test(error.message)) {
    // KaTeX's maxExpand, which it says to raise: the limit is ours, named as the others are
    return {
      error: `KaTeX parse error: more than ${limits.expand} macro expansions ` +
        "(LIMIT_FORMULA_EXPAND)",
    };
  }
  if (error instanceof katex.ParseError) return { error: error.message };
  if (error instanceof RangeError) {
    return { error: "KaTeX parse error: formula nested too deeply" };
  }
  return { error: String(error) };
}

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const { limits, total, formulas } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  // once the batch has made `total` bytes (a page's cap), the rest are left unfinished
  let made = 0;
  process.stdout.write(JSON.stringify(formulas.map((formula) => {
    if (total && made > total) return { unfinished: true };
    const result = typeset(formula, limits);
    made += result.html ? Buffer.byteLength(result.html) : 0;
    return result;
  })));
});
