// Wide tables of figures (runs x metrics, runs x the 15 ways): the reader chooses the columns shown.
// By default the headline figures come first (for each kind, the figures its documentation calls the
// ones to read), then the others, as many as fit the table's box: nothing to scroll sideways for.
// Hidden columns stay in the page (CSS only hides them), so the numbers are all there to print or copy.
(function () {
  "use strict";
  // The caption in the page's language: the script tag carries it, translated by the template.
  var script = document.currentScript;
  var CAPTION = (script && script.getAttribute("data-caption")) || "Columns: %(n)s of %(m)s shown (choose)";
  // Layer codes in order of preference (see docs/results-pages.md); columns without one keep their order.
  var PREFERRED = ["deps-las", "conll18-las", "deps-uas", "conll18-clas", "conll18-mlas", "conll18-blex",
                   "evalb-unlabelled", "evalb", "leaf-ancestor", "deps-lin", "conformance", "geig1991"];

  function cellsOf(table, index) {
    var out = [];
    Array.prototype.forEach.call(table.rows, function (row) { if (row.cells[index]) { out.push(row.cells[index]); } });
    return out;
  }

  function show(table, index, shown) {
    cellsOf(table, index).forEach(function (cell) {
      if (shown) { cell.removeAttribute("data-hidden-column"); } else { cell.setAttribute("data-hidden-column", ""); }
    });
  }

  function priority(columns) {
    return columns.slice().sort(function (a, b) {
      var pa = PREFERRED.indexOf(a.layer), pb = PREFERRED.indexOf(b.layer);
      pa = pa < 0 ? PREFERRED.length + a.index : pa;
      pb = pb < 0 ? PREFERRED.length + b.index : pb;
      return pa - pb;
    });
  }

  function fits(table, box) { return table.scrollWidth <= box.clientWidth + 1; }

  function setUp(table) {
    var head = table.tHead && table.tHead.rows[0];
    var box = table.parentElement;
    if (!head || head.cells.length < 4 || !box) { return; }
    var columns = Array.prototype.slice.call(head.cells, 1).map(function (th, i) {
      return { index: i + 1, layer: th.getAttribute("data-layer") || "", name: th.textContent.trim(), shown: true };
    });
    var chosenByReader = false;
    var chooser = document.createElement("details");
    chooser.className = "column-choice";
    var summary = document.createElement("summary");
    chooser.appendChild(summary);
    var boxes = columns.map(function (column) {
      var label = document.createElement("label");
      var input = document.createElement("input");
      input.type = "checkbox";
      input.setAttribute("data-column", column.index);
      if (column.layer) { input.setAttribute("data-layer", column.layer); }
      input.addEventListener("change", function () {
        chosenByReader = true;
        column.shown = input.checked;
        show(table, column.index, column.shown);
        caption();
      });
      label.appendChild(input);
      label.appendChild(document.createTextNode(column.name));
      chooser.appendChild(label);
      return input;
    });
    box.parentNode.insertBefore(chooser, box);

    function caption() {
      var n = columns.filter(function (c) { return c.shown; }).length;
      summary.textContent = CAPTION.replace("%(n)s", n).replace("%(m)s", columns.length);
      columns.forEach(function (c, i) { boxes[i].checked = c.shown; });
    }

    function fit() {
      if (chosenByReader) { return; }
      columns.forEach(function (c) { c.shown = false; show(table, c.index, false); });
      priority(columns).forEach(function (c, k) {
        c.shown = true;
        show(table, c.index, true);
        if (k > 0 && !fits(table, box)) { c.shown = false; show(table, c.index, false); }
      });
      caption();
    }

    fit();
    var pending = null;
    window.addEventListener("resize", function () {
      window.clearTimeout(pending);
      pending = window.setTimeout(fit, 150);
    });
  }

  document.querySelectorAll("table.overview, table.ways-table").forEach(setUp);
}());
