// Typesets the formulas of every page with the vendored KaTeX (no network): arithmatex's \( \) and \[ \] on the
// Markdown pages, $ $ and $$ $$ in the notebooks' Markdown cells. Material for MkDocs swaps pages without a reload
// (document$ when navigation.instant is on), so typeset on each page shown.
function renderFormulas() {
  renderMathInElement(document.body, {
    delimiters: [
      {left: "$$", right: "$$", display: true},
      {left: "\\[", right: "\\]", display: true},
      {left: "\\(", right: "\\)", display: false},
      {left: "$", right: "$", display: false},
    ],
    ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code", "option"],
    throwOnError: false,
  });
}
if (typeof document$ !== "undefined") { document$.subscribe(renderFormulas); }
else { document.addEventListener("DOMContentLoaded", renderFormulas); }
