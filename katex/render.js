// TeX to MathML for the curriculum site, one batch per process.
// stdin:  [{"tex": "...", "display": false}, ...]
// stdout: [{"html": "<span class=\"katex\"><math ...>"} | {"error": "KaTeX parse error: ..."}, ...]
// Nothing is trusted: \href, \url, \html* and friends are refused, and sizes are bounded.
"use strict";

const katex = require("katex");

const OPTIONS = {
  output: "mathml",
  throwOnError: true,
  trust: false,
  strict: "ignore",
  maxSize: 50,
  maxExpand: 1000,
};

function typeset({ tex, display }) {
  try {
    return { html: katex.renderToString(String(tex), { ...OPTIONS, displayMode: !!display }) };
  } catch (error) {
    return { error: error instanceof katex.ParseError ? error.message : String(error) };
  }
}

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const formulas = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  process.stdout.write(JSON.stringify(formulas.map(typeset)));
});
