/* The session report's only script: tables with class "sortable" sort on a click on a column heading.
   Cells carry their sort key in data-sort; headings with data-type="number" sort numerically; empty keys last. */
(function () {
  "use strict";
  function key(row, col, numeric) {
    var cell = row.cells[col];
    var raw = cell ? (cell.getAttribute("data-sort") !== null ? cell.getAttribute("data-sort") : cell.textContent) : "";
    if (raw === "") { return null; }
    return numeric ? parseFloat(raw) : raw.toLowerCase();
  }
  function sortBy(table, th, col) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var numeric = th.getAttribute("data-type") === "number";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, col, numeric), y = key(b, col, numeric);
      if (x === null || y === null) { return x === y ? 0 : (x === null ? 1 : -1); }
      var c = x < y ? -1 : (x > y ? 1 : 0);
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener("click", function () { sortBy(table, th, col); });
    });
  });
}());
