// Dots and Boxes on the site: 6 x 6 dots, edges coloured by the seat that
// drew them, boxes by their owner; the person plays by clicking an edge or
// by moving between edges with the arrow keys (docs/site.md, "A game's board").
'use strict';
(function () {
  var A = window.Arena;

  // edgeLabel says which edge o(r, c) is, in words: "top edge of the box
  // in row 1, column 2".
  function edgeLabel(o, r, c, rows, cols) {
    if (o === 'H') return r < rows ? 'top edge of the box in row ' + (r + 1) + ', column ' + (c + 1) : 'bottom edge of the box in row ' + r + ', column ' + (c + 1);
    return c < cols ? 'left edge of the box in row ' + (r + 1) + ', column ' + (c + 1) : 'right edge of the box in row ' + (r + 1) + ', column ' + c;
  }

  // sides counts the drawn sides of box (r, c) and names a free one.
  function sides(f, r, c) {
    var k = [['top', f.h[r][c], 'H', r, c], ['bottom', f.h[r + 1][c], 'H', r + 1, c], ['left', f.v[r][c], 'V', r, c], ['right', f.v[r][c + 1], 'V', r, c + 1]];
    var n = 0, free = null;
    k.forEach(function (e) { if (e[1]) n++; else if (!free) free = e[0]; });
    return { n: n, free: free };
  }

  // lastMoverWasMe: the turn that led to the latest frame was the person's
  // own, so they closed a box and move again.
  function lastMoverWasMe(P) {
    var t = P.lastTurn();
    if (!t || !t.seats) return false;
    for (var i = 0; i < t.seats.length; i++) { var s = t.seats[i]; if (s && s.seat === P.seat && s.status !== 'ignored') return true; }
    return false;
  }

  Arena.boards['dots-and-boxes'] = {
    delay: 450,
    keys: [['Tab, arrows', 'to an edge (playing)'], ['Enter', 'draw the edge']],
    // prepare records which seat drew each edge and on which frame, from
    // the actions the game applied.
    prepare: function (frame, prev, turn) {
      var out = {}, k;
      for (k in frame) if (Object.prototype.hasOwnProperty.call(frame, k)) out[k] = frame[k];
      out.index = prev ? prev.index + 1 : 0;
      out.edgeBy = prev ? Object.assign({}, prev.edgeBy) : {};
      if (turn && turn.seats) turn.seats.forEach(function (s) {
        if (s && s.status !== 'ignored' && s.action && s.action.orient) out.edgeBy[s.action.orient + ':' + s.action.r + ':' + s.action.c] = { seat: s.seat, turn: out.index };
      });
      return out;
    },
    draw: function (svg, f, ctx) {
      var S = 60, M = 30, rows = f.rows || 5, cols = f.cols || 5, el = A.el;
      svg.setAttribute('viewBox', '0 0 ' + (cols * S + 2 * M) + ' ' + (rows * S + 2 * M));
      A.clear(svg);
      el('rect', { class: 'b-bg', x: 0, y: 0, width: cols * S + 2 * M, height: rows * S + 2 * M }, svg);
      var by = f.edgeBy || {}, p = ctx.animate ? ctx.prev : null;
      for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
        var o = f.owner && f.owner[r] ? f.owner[r][c] : -1;
        var cls = 'b-box' + (o >= 0 ? ' o' + o : '');
        if (o >= 0 && p && p.owner && (p.owner[r] || [])[c] !== o) cls += ' new';
        el('rect', { class: cls, x: M + c * S + 3, y: M + r * S + 3, width: S - 6, height: S - 6, rx: 4 }, svg);
      }
      var edges = el('g', null, svg);
      function edge(o, r, c, x1, y1, x2, y2, drawn) {
        var key = o + ':' + r + ':' + c, info = by[key];
        if (!drawn && ctx.pickEdge) {
          var hit = el('line', { class: 'hit', x1: x1, y1: y1, x2: x2, y2: y2, tabindex: 0, role: 'button',
            'aria-label': 'Draw the ' + edgeLabel(o, r, c, rows, cols), 'data-edge': key, 'data-pick': key }, edges);
          hit.addEventListener('click', function () { ctx.pickEdge(o, r, c); });
          hit.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); ctx.pickEdge(o, r, c); } });
        }
        var cls = 'b-edge' + (drawn ? ' drawn' + (info ? ' by' + info.seat : '') : '') + (drawn && info && info.turn === ctx.turn ? ' last' + (ctx.animate ? ' new' : '') : '');
        el('line', { class: cls, x1: x1, y1: y1, x2: x2, y2: y2, 'data-key': key }, edges);
      }
      for (r = 0; r <= rows; r++) for (c = 0; c < cols; c++)
        edge('H', r, c, M + c * S, M + r * S, M + (c + 1) * S, M + r * S, f.h && f.h[r] && f.h[r][c]);
      for (r = 0; r < rows; r++) for (c = 0; c <= cols; c++)
        edge('V', r, c, M + c * S, M + r * S, M + c * S, M + (r + 1) * S, f.v && f.v[r] && f.v[r][c]);
      for (r = 0; r <= rows; r++) for (c = 0; c <= cols; c++) el('circle', { class: 'b-dot', cx: M + c * S, cy: M + r * S, r: 5 }, svg);
      if (ctx.pickEdge && !svg.arrowKeys) { svg.arrowKeys = true; A.arrowKeys(svg, '.hit'); }
    },
    scores: function (f) { return f.scores || []; },
    mover: function (f) { return f.to_move; },
    expectedTurns: function () { return 60; },
    // describe is the board in words: the boxes each seat holds, how many
    // edges are drawn, the boxes one edge from closing and who moves.
    describe: function (f, ctx) {
      var rows = f.rows || 5, cols = f.cols || 5, drawn = 0, total = (rows + 1) * cols + rows * (cols + 1), three = [], two = 0;
      if (!f.h || !f.v) return '';
      f.h.forEach(function (row) { row.forEach(function (e) { if (e) drawn++; }); });
      f.v.forEach(function (row) { row.forEach(function (e) { if (e) drawn++; }); });
      for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
        var s = sides(f, r, c);
        if (s.n === 3) three.push('row ' + (r + 1) + ', column ' + (c + 1) + ' (its ' + s.free + ' edge is free)');
        else if (s.n === 2) two++;
      }
      var scores = (f.scores || []).map(function (n, seat) { return ctx.seatName(seat) + ' ' + n; });
      var out = 'Boxes: ' + scores.join(', ') + '. ' + drawn + ' of ' + total + ' edges drawn.';
      if (three.length) out += ' One edge from closing: the box' + (three.length > 1 ? 'es' : '') + ' in ' + three.join('; ') + '.';
      if (two) out += ' ' + two + ' box' + (two > 1 ? 'es have' : ' has') + ' two sides.';
      if (drawn < total && f.to_move >= 0) out += ' To move: ' + ctx.seatName(f.to_move) + '.';
      return out;
    },
    // moveWords names the edge a seat drew and the boxes it closed.
    moveWords: function (rec, f, prev) {
      var a = rec.action || {};
      if (a.orient !== 'H' && a.orient !== 'V') return '';
      var gained = prev && prev.scores && f.scores ? (f.scores[rec.seat] | 0) - (prev.scores[rec.seat] | 0) : 0;
      return edgeLabel(a.orient, a.r | 0, a.c | 0, f.rows || 5, f.cols || 5) + (gained > 0 ? ', closing ' + (gained === 1 ? 'a box' : gained + ' boxes') : '');
    },
    play: function (P) {
      P.text('hint').textContent = 'Click or tap an edge; with the keyboard, Tab to an edge and press Enter.';
      return {
        decorate: function (ctx, f, isLatest) {
          if (P.myTurn() && isLatest) ctx.pickEdge = function (o, r, c) { P.send({ orient: o, r: r, c: c }); };
        },
        prompt: function () {
          if (lastMoverWasMe(P)) return { text: 'You closed a box: move again.', extra: true };
          return 'Your move: click an edge to draw it.';
        },
      };
    },
  };
})();
