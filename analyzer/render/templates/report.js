// bgreview game list viewer: a click or the arrow keys show a decision's board, candidates and IDs;
// filters keep the errors, one player or one game. Everything it shows was escaped when the page
// was written (the data is JSON with <, > and & escaped, its HTML and SVG built by bgreview).
(function () {
  "use strict";
  var dataEl = document.getElementById("bgr-data");
  if (!dataEl) { return; }
  var data = JSON.parse(dataEl.textContent);
  var packed = null;  // {pieces: [...], details: [...]}, unpacked once at load
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.game-list tr.dec"));
  var viewer = document.getElementById("viewer");
  var filters = document.getElementById("filters");
  var boardEl = document.getElementById("v-board");
  var detailsEl = document.getElementById("v-details");
  var whereEl = document.getElementById("v-where");
  var fErrors = document.getElementById("f-errors");
  var fPlayer = document.getElementById("f-player");
  var fGame = document.getElementById("f-game");
  var fCount = document.getElementById("f-count");
  var current = -1;
  var bottom = 0;  // the player drawn at the bottom (the toggle switches)
  var flipEl = document.getElementById("v-flip");

  function unpack(text) {
    // base64 of gzip-compressed JSON (bgreview's render.html.pack)
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var k = 0; k < binary.length; k += 1) { bytes[k] = binary.charCodeAt(k); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function visible(row) { return !row.classList.contains("hidden"); }

  function board(d) {
    // the static frame of the decision's layout with the decision's pieces inserted before its end
    var frame = d.layout ? data.layouts[d.layout[bottom]] : null;
    var pieces = packed.pieces[d.i] ? packed.pieces[d.i][bottom] : null;
    if (!frame || !pieces) {
      boardEl.innerHTML = '<p class="note">No board: the position key could not be read.</p>';
      return;
    }
    var end = frame.lastIndexOf("</svg>");
    boardEl.innerHTML = frame.slice(0, end) + pieces + frame.slice(end);
  }

  function addCopyButtons() {
    var codes = detailsEl.querySelectorAll("code.id");
    Array.prototype.forEach.call(codes, function (code) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = "copy";
      button.title = "copy the whole ID";
      button.addEventListener("click", function () {
        var text = code.textContent;
        var done = function () { button.textContent = "copied"; };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, function () { selectText(code); });
        } else {
          selectText(code);
        }
      });
      code.parentNode.appendChild(button);
    });
  }

  function selectText(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  function show(i) {
    var d = data.decisions[i];
    if (!d) { return; }
    if (current >= 0 && rows[current]) { rows[current].classList.remove("sel"); rows[current].removeAttribute("aria-selected"); }
    current = i;
    var row = rows[i];
    row.classList.add("sel");
    row.setAttribute("aria-selected", "true");
    scrollList(row);
    board(d);
    detailsEl.innerHTML = packed.details[d.i];
    addCopyButtons();
    viewer.setAttribute("data-i", String(i));
    viewer.setAttribute("data-key", d.key);
    whereEl.textContent = "game " + d.game + ", move " + d.move + " (" + data.names[d.side] + ")";
  }

  function scrollList(row) {
    // scroll the list box only (never the page): the row's offsetTop is relative to the box
    var box = row.closest(".list-scroll");
    if (!box) { return; }
    var head = box.querySelector("thead");
    var top = row.offsetTop - (head ? head.offsetHeight : 0);
    if (top < box.scrollTop) { box.scrollTop = top; }
    else if (row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = row.offsetTop + row.offsetHeight - box.clientHeight;
    }
  }

  function step(delta) {
    var i = current;
    for (;;) {
      i += delta;
      if (i < 0 || i >= rows.length) { return; }
      if (visible(rows[i])) { show(i); return; }
    }
  }

  function applyFilters() {
    var errorsOnly = fErrors.checked;
    var side = fPlayer.value;
    var game = fGame.value;
    var shown = 0;
    rows.forEach(function (row) {
      var keep = (!errorsOnly || row.getAttribute("data-err") === "1") &&
        (side === "" || row.getAttribute("data-side") === side) &&
        (game === "" || row.getAttribute("data-game") === game);
      row.classList.toggle("hidden", !keep);
      if (keep) { shown += 1; }
    });
    fCount.textContent = shown + " of " + rows.length + " decisions";
    if (current < 0 || !visible(rows[current])) {
      var first = rows.filter(visible)[0];
      if (first) { show(Number(first.getAttribute("data-i"))); }
    }
  }

  function start() {
    viewer.hidden = false;
    filters.hidden = false;
    document.body.classList.add("js");
    rows.forEach(function (row) {
      row.tabIndex = -1;
      row.addEventListener("click", function () { show(Number(row.getAttribute("data-i"))); });
    });
    [fErrors, fPlayer, fGame].forEach(function (el) { el.addEventListener("change", applyFilters); });
    flipEl.addEventListener("click", function () {
      bottom = 1 - bottom;
      flipEl.textContent = "put " + data.names[1 - bottom] + " at the bottom";
      viewer.setAttribute("data-bottom", String(bottom));
      if (current >= 0) { board(data.decisions[current]); }
    });
    document.getElementById("v-prev").addEventListener("click", function () { step(-1); });
    document.getElementById("v-next").addEventListener("click", function () { step(1); });
    document.addEventListener("keydown", function (ev) {
      var tag = ev.target && ev.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
      if (ev.key === "ArrowDown" || ev.key === "ArrowRight") { step(1); ev.preventDefault(); }
      else if (ev.key === "ArrowUp" || ev.key === "ArrowLeft") { step(-1); ev.preventDefault(); }
    });
    document.addEventListener("click", function (ev) {
      var link = ev.target && ev.target.closest ? ev.target.closest('a[href^="#d-"]') : null;
      if (!link) { return; }
      var i = Number(link.getAttribute("href").slice(3));
      if (rows[i] && !visible(rows[i])) {
        fErrors.checked = false; fPlayer.value = ""; fGame.value = "";
        applyFilters();
      }
      show(i);
    });
    var m = /^#d-(\d+)$/.exec(window.location.hash);
    applyFilters();
    if (m && rows[Number(m[1])]) { show(Number(m[1])); }
    document.body.setAttribute("data-viewer", "ready");
  }

  if (typeof DecompressionStream === "undefined") {
    // too old a browser for the packed boards: the game list and the error list still read
    document.body.setAttribute("data-viewer", "unavailable");
    return;
  }
  unpack(data.packed).then(function (got) { packed = got; start(); });
}());
