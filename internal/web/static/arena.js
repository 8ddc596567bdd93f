// The helpers every game's board uses. A game's board is its own script,
// games/<g>/web/board.js, served at /static/games/ID/board.js: it registers
// Arena.boards[ID], which the viewer and the play page call (docs/site.md,
// "A game's board"). Nothing here trusts text from a bot.
'use strict';
var Arena = window.Arena || (window.Arena = {});
Arena.SVGNS = 'http://www.w3.org/2000/svg';
Arena.el = function (name, attrs, parent) {
  var e = document.createElementNS(Arena.SVGNS, name);
  if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
};
Arena.clear = function (n) { while (n.firstChild) n.removeChild(n.firstChild); };
Arena.letter = function (c) { return String.fromCharCode(65 + c); };
Arena.boards = {};

// arrowKeys moves the focus among a board's pickable parts (selector) with
// the arrow keys: to the nearest one whose centre lies in that direction,
// nearest along it first. Enter or Space then plays the focused part.
Arena.arrowKeys = function (svg, selector) {
  svg.addEventListener('keydown', function (e) {
    var dir = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] }[e.key];
    if (!dir || !e.target.matches || !e.target.matches(selector)) return;
    var centre = function (el) { var b = el.getBBox(); return [b.x + b.width / 2, b.y + b.height / 2]; };
    var from = centre(e.target), best = null, bestScore = Infinity;
    Array.prototype.forEach.call(svg.querySelectorAll(selector), function (el) {
      if (el === e.target) return;
      var c = centre(el), dx = c[0] - from[0], dy = c[1] - from[1];
      var along = dx * dir[0] + dy * dir[1], across = Math.abs(dx * dir[1] - dy * dir[0]);
      if (along <= 0.5) return;
      var score = along + 2 * across;
      if (score < bestScore) { bestScore = score; best = el; }
    });
    if (best) { e.preventDefault(); best.focus(); }
  });
};
