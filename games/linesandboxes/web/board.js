// Lines and Boxes on the site: dots named in the 2006 notation, lines of
// any length; the person plays by picking two dots on one row or column
// (or dragging from one to the other) (docs/site.md, "A game's board").
'use strict';
(function () {
  var A = window.Arena;

  var B = Arena.boards['lines-and-boxes'] = {
    delay: 650,
    keys: [['Tab, arrows', 'to a dot (playing)'], ['Enter', 'pick the dot'], ['Esc', 'drop the first dot']],
    parseDot: function (s) {
      var m = /^([A-Za-z])([1-9][0-9]{0,2})$/.exec(String(s || ''));
      return m ? { c: m[1].toUpperCase().charCodeAt(0) - 65, r: parseInt(m[2], 10) - 1 } : null;
    },
    dotName: function (r, c) { return A.letter(c) + (r + 1); },
    draw: function (svg, f, ctx) {
      var S = 56, M = 40, rows = f.rows, cols = f.cols, el = A.el;
      var W = cols * S + 2 * M, H = rows * S + 2 * M, p = ctx.animate ? ctx.prev : null;
      svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
      A.clear(svg);
      el('rect', { class: 'b-bg', x: 0, y: 0, width: W, height: H }, svg);
      for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
        var o = f.boxes && f.boxes[r] ? f.boxes[r][c] : -1;
        if (o === -1) continue;
        var isNew = p && p.boxes && (p.boxes[r] || [])[c] !== o;
        var cls = 'b-box ' + (o >= 0 ? 'o' + o : 'onone') + (isNew ? ' new' : '');
        el('rect', { class: cls, x: M + c * S + 3, y: M + r * S + 3, width: S - 6, height: S - 6, rx: 4 }, svg);
      }
      for (c = 0; c <= cols; c++) { var t = el('text', { class: 'b-coord', x: M + c * S, y: 18, 'text-anchor': 'middle' }, svg); t.textContent = A.letter(c); }
      for (r = 0; r <= rows; r++) { t = el('text', { class: 'b-coord', x: 16, y: M + r * S + 4, 'text-anchor': 'middle' }, svg); t.textContent = String(r + 1); }
      var free = el('g', null, svg);
      for (r = 0; r <= rows; r++) for (c = 0; c < cols; c++) if (!(f.h[r] && f.h[r][c]))
        el('line', { class: 'b-edge', x1: M + c * S, y1: M + r * S, x2: M + (c + 1) * S, y2: M + r * S }, free);
      for (r = 0; r < rows; r++) for (c = 0; c <= cols; c++) if (!(f.v[r] && f.v[r][c]))
        el('line', { class: 'b-edge', x1: M + c * S, y1: M + r * S, x2: M + c * S, y2: M + (r + 1) * S }, free);
      var moves = f.moves || [], prevCount = ctx.prev && ctx.prev.moves ? ctx.prev.moves.length : moves.length;
      moves.forEach(function (mv, i) {
        var a = B.parseDot(mv.from), b = B.parseDot(mv.to);
        if (!a || !b) return;
        var cls = 'b-edge drawn ' + (mv.player >= 0 ? 'by' + mv.player : 'pre') + (i >= prevCount && i > 0 && ctx.turn > 0 ? ' last' + (ctx.animate ? ' new' : '') : '');
        el('line', { class: cls, x1: M + a.c * S, y1: M + a.r * S, x2: M + b.c * S, y2: M + b.r * S }, svg);
      });
      var preview = el('line', { class: 'preview', x1: 0, y1: 0, x2: 0, y2: 0, visibility: 'hidden' }, svg);
      var legal = ctx.picked ? B.legalEnds(f, ctx.picked) : null;
      for (r = 0; r <= rows; r++) for (c = 0; c <= cols; c++) (function (r, c) {
        var name = B.dotName(r, c);
        if (ctx.pickDot) {
          var hit = el('circle', { class: 'hitdot', cx: M + c * S, cy: M + r * S, r: S / 2.6, tabindex: 0, role: 'button',
            'aria-label': 'Dot ' + name, 'data-dot': name, 'data-pick': name }, svg);
          hit.addEventListener('pointerdown', function (e) { e.preventDefault(); ctx.pickDot(r, c, 'down'); });
          hit.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); ctx.pickDot(r, c, 'key'); } });
          if (legal && legal[name]) {
            hit.addEventListener('pointerenter', function () {
              preview.setAttribute('x1', M + ctx.picked.c * S); preview.setAttribute('y1', M + ctx.picked.r * S);
              preview.setAttribute('x2', M + c * S); preview.setAttribute('y2', M + r * S); preview.setAttribute('visibility', 'visible');
            });
            hit.addEventListener('pointerleave', function () { preview.setAttribute('visibility', 'hidden'); });
          }
        }
        var cls = 'b-dot' + (legal && legal[name] ? ' legal' : '') + (ctx.picked && ctx.picked.r === r && ctx.picked.c === c ? ' picked' : '');
        el('circle', { class: cls, cx: M + c * S, cy: M + r * S, r: legal && legal[name] ? 7 : 5 }, svg);
      })(r, c);
      if (ctx.pickDot && !svg.arrowKeys) { svg.arrowKeys = true; A.arrowKeys(svg, '.hitdot'); }
    },
    // legalEnds lists the dots a line from p may end at: along its row and
    // column, until the first unit edge already drawn.
    legalEnds: function (f, p) {
      var out = {}, r, c;
      for (c = p.c - 1; c >= 0 && !f.h[p.r][c]; c--) out[B.dotName(p.r, c)] = true;
      for (c = p.c; c < f.cols && !f.h[p.r][c]; c++) out[B.dotName(p.r, c + 1)] = true;
      for (r = p.r - 1; r >= 0 && !f.v[r][p.c]; r--) out[B.dotName(r, p.c)] = true;
      for (r = p.r; r < f.rows && !f.v[r][p.c]; r++) out[B.dotName(r + 1, p.c)] = true;
      return out;
    },
    scores: function (f) { return f.scores || []; },
    mover: function (f) { return f.to_move; },
    // describe is the board in words: the boxes each seat holds, the unit
    // edges drawn, the boxes one edge from closing (with that edge in the
    // notation) and who moves.
    describe: function (f, ctx) {
      if (!f.h || !f.v) return '';
      var rows = f.rows, cols = f.cols, drawn = 0, total = (rows + 1) * cols + rows * (cols + 1), three = [];
      f.h.forEach(function (row) { row.forEach(function (e) { if (e) drawn++; }); });
      f.v.forEach(function (row) { row.forEach(function (e) { if (e) drawn++; }); });
      for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
        var free = [];
        if (!f.h[r][c]) free.push(B.dotName(r, c) + ' ' + B.dotName(r, c + 1));
        if (!f.h[r + 1][c]) free.push(B.dotName(r + 1, c) + ' ' + B.dotName(r + 1, c + 1));
        if (!f.v[r][c]) free.push(B.dotName(r, c) + ' ' + B.dotName(r + 1, c));
        if (!f.v[r][c + 1]) free.push(B.dotName(r, c + 1) + ' ' + B.dotName(r + 1, c + 1));
        if (free.length === 1) three.push(free[0]);
      }
      var scores = (f.scores || []).map(function (n, seat) { return ctx.seatName(seat) + ' ' + n; });
      var out = 'Boxes: ' + scores.join(', ') + '. ' + (f.moves || []).length + ' lines, ' + drawn + ' of ' + total + ' unit edges drawn.';
      if (three.length === 1) out += ' 1 box one edge from closing: the line ' + three[0] + ' closes it.';
      else if (three.length) out += ' ' + three.length + ' boxes one edge from closing: the lines ' + three.join(', ') + ' close them.';
      if (drawn < total && f.to_move >= 0) out += ' To move: ' + ctx.seatName(f.to_move) + '.';
      return out;
    },
    // moveWords is the line a seat drew in the notation, its length and the
    // boxes it closed.
    moveWords: function (rec, f, prev) {
      var a = B.parseDot(rec.action && rec.action.from), b = B.parseDot(rec.action && rec.action.to);
      if (!a || !b) return '';
      var len = Math.abs(a.r - b.r) + Math.abs(a.c - b.c);
      var gained = prev && prev.scores && f.scores ? (f.scores[rec.seat] | 0) - (prev.scores[rec.seat] | 0) : 0;
      return B.dotName(a.r, a.c) + ' ' + B.dotName(b.r, b.c) + (len > 1 ? ' (' + len + ' edges)' : '') +
        (gained > 0 ? ', closing ' + (gained === 1 ? 'a box' : gained + ' boxes') : '');
    },
    // notes lists every line of the game so far in the 2006 notation.
    notes: function (f, ctx) {
      if (!f.moves || !f.moves.length) return null;
      var box = document.createElement('div');
      var h = document.createElement('div'); h.textContent = 'Lines, in the 2006 notation:';
      var ol = document.createElement('ol'); ol.className = 'moves';
      f.moves.forEach(function (mv) {
        var li = document.createElement('li');
        li.className = mv.player >= 0 ? 'p' + mv.player : 'pre';
        li.textContent = String(mv.from) + ' ' + String(mv.to) + (mv.player >= 0 ? '  ' + ctx.seatName(mv.player) : '  (starting line)');
        ol.appendChild(li);
      });
      box.appendChild(h); box.appendChild(ol);
      setTimeout(function () { ol.scrollTop = ol.scrollHeight; }, 0);
      return box;
    },
    // expectedTurns: every unit edge drawn one at a time, halved for the
    // longer lines most games draw.
    expectedTurns: function (f) { return f.rows ? Math.ceil((f.rows * (f.cols + 1) + f.cols * (f.rows + 1)) / 2) : 0; },
    play: function (P) {
      var picked = null, note = P.text('notation');
      P.text('hint').textContent = ' Click two dots, or drag from one to the other. Esc drops the first dot.';
      function showNote() { note.textContent = picked ? 'Your line: ' + B.dotName(picked.r, picked.c) + ' → …' : ''; }
      function drawLine(to) {
        var a = B.dotName(picked.r, picked.c);
        picked = null; note.textContent = 'You drew ' + a + ' ' + to;
        P.send({ from: a, to: to });
      }
      P.svg.addEventListener('pointerup', function (e) {
        if (!picked || !P.myTurn()) return;
        var t = document.elementFromPoint(e.clientX, e.clientY), name = t && t.getAttribute && t.getAttribute('data-dot');
        if (!name) return;
        var p = B.parseDot(name);
        if (p && !(p.r === picked.r && p.c === picked.c) && B.legalEnds(P.latest(), picked)[name]) drawLine(name);
      });
      return {
        decorate: function (ctx, f, isLatest) {
          if (!(P.myTurn() && isLatest)) { picked = null; showNote(); return; }
          ctx.picked = picked;
          ctx.pickDot = function (r, c, how) {
            if (picked && picked.r === r && picked.c === c) { if (how !== 'up') { picked = null; showNote(); P.redraw(); } return; }
            if (picked && B.legalEnds(f, picked)[B.dotName(r, c)]) { drawLine(B.dotName(r, c)); return; }
            if (how === 'up') return;
            picked = { r: r, c: c }; showNote(); P.redraw();
          };
        },
        key: function (e) { if (e.key === 'Escape' && picked) { picked = null; showNote(); P.redraw(); return true; } return false; },
        prompt: function () { return 'Your move: pick two dots on one row or column.'; },
      };
    },
  };
})();
