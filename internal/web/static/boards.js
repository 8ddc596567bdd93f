// Board drawings for the viewer and for play, one per game, in SVG. Each
// board draws a frame (the game's own observation of the state after a turn)
// and calls hooks for interaction; nothing here trusts text from a bot.
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

// edgeLabel says which edge of a Dots and Boxes board o(r, c) is, in
// words: "top edge of the box in row 1, column 2".
Arena.edgeLabel = function (o, r, c, rows, cols) {
  if (o === 'H') return r < rows ? 'top edge of the box in row ' + (r + 1) + ', column ' + (c + 1) : 'bottom edge of the box in row ' + r + ', column ' + (c + 1);
  return c < cols ? 'left edge of the box in row ' + (r + 1) + ', column ' + (c + 1) : 'right edge of the box in row ' + (r + 1) + ', column ' + c;
};

// Dots and Boxes: 6 x 6 dots, edges coloured by the seat that drew them.
Arena.boards['dots-and-boxes'] = {
  prepare: function (frame) { return frame; },
  draw: function (svg, f, ctx) {
    var S = 60, M = 30, rows = f.rows || 5, cols = f.cols || 5, el = Arena.el;
    svg.setAttribute('viewBox', '0 0 ' + (cols * S + 2 * M) + ' ' + (rows * S + 2 * M));
    Arena.clear(svg);
    el('rect', { class: 'b-bg', x: 0, y: 0, width: cols * S + 2 * M, height: rows * S + 2 * M }, svg);
    var by = ctx.edgeBy || {};
    for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
      var o = f.owner && f.owner[r] ? f.owner[r][c] : -1;
      var cls = 'b-box' + (o >= 0 ? ' o' + o : '');
      if (o >= 0 && ctx.newBoxes && ctx.newBoxes[r + ':' + c]) cls += ' new';
      el('rect', { class: cls, x: M + c * S + 3, y: M + r * S + 3, width: S - 6, height: S - 6, rx: 4 }, svg);
    }
    var edges = el('g', null, svg);
    function edge(o, r, c, x1, y1, x2, y2, drawn) {
      var key = o + ':' + r + ':' + c, info = by[key];
      if (!drawn && ctx.pickEdge) {
        var hit = el('line', { class: 'hit', x1: x1, y1: y1, x2: x2, y2: y2, tabindex: 0, role: 'button',
          'aria-label': 'Draw the ' + Arena.edgeLabel(o, r, c, rows, cols), 'data-edge': key }, edges);
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
    if (ctx.pickEdge && !svg.arrowKeys) { svg.arrowKeys = true; Arena.arrowKeys(svg, '.hit'); }
  },
  scores: function (f) { return f.scores || []; },
  mover: function (f) { return f.to_move; },
};

// Lines and Boxes: dots named in the 2006 notation, lines of any length.
Arena.boards['lines-and-boxes'] = {
  prepare: function (frame) { return frame; },
  parseDot: function (s) {
    var m = /^([A-Za-z])([1-9][0-9]{0,2})$/.exec(String(s || ''));
    return m ? { c: m[1].toUpperCase().charCodeAt(0) - 65, r: parseInt(m[2], 10) - 1 } : null;
  },
  dotName: function (r, c) { return Arena.letter(c) + (r + 1); },
  draw: function (svg, f, ctx) {
    var S = 56, M = 40, rows = f.rows, cols = f.cols, el = Arena.el, self = this;
    var W = cols * S + 2 * M, H = rows * S + 2 * M;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    Arena.clear(svg);
    el('rect', { class: 'b-bg', x: 0, y: 0, width: W, height: H }, svg);
    for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
      var o = f.boxes && f.boxes[r] ? f.boxes[r][c] : -1;
      if (o === -1) continue;
      var cls = 'b-box ' + (o >= 0 ? 'o' + o : 'onone') + (ctx.newBoxes && ctx.newBoxes[r + ':' + c] ? ' new' : '');
      el('rect', { class: cls, x: M + c * S + 3, y: M + r * S + 3, width: S - 6, height: S - 6, rx: 4 }, svg);
    }
    for (c = 0; c <= cols; c++) { var t = el('text', { class: 'b-coord', x: M + c * S, y: 18, 'text-anchor': 'middle' }, svg); t.textContent = Arena.letter(c); }
    for (r = 0; r <= rows; r++) { t = el('text', { class: 'b-coord', x: 16, y: M + r * S + 4, 'text-anchor': 'middle' }, svg); t.textContent = String(r + 1); }
    var free = el('g', null, svg);
    for (r = 0; r <= rows; r++) for (c = 0; c < cols; c++) if (!(f.h[r] && f.h[r][c]))
      el('line', { class: 'b-edge', x1: M + c * S, y1: M + r * S, x2: M + (c + 1) * S, y2: M + r * S }, free);
    for (r = 0; r < rows; r++) for (c = 0; c <= cols; c++) if (!(f.v[r] && f.v[r][c]))
      el('line', { class: 'b-edge', x1: M + c * S, y1: M + r * S, x2: M + c * S, y2: M + (r + 1) * S }, free);
    var moves = f.moves || [], prevCount = ctx.prevMoves == null ? moves.length : ctx.prevMoves;
    moves.forEach(function (mv, i) {
      var a = self.parseDot(mv.from), b = self.parseDot(mv.to);
      if (!a || !b) return;
      var cls = 'b-edge drawn ' + (mv.player >= 0 ? 'by' + mv.player : 'pre') + (i >= prevCount && i > 0 && ctx.turn > 0 ? ' last' + (ctx.animate ? ' new' : '') : '');
      el('line', { class: cls, x1: M + a.c * S, y1: M + a.r * S, x2: M + b.c * S, y2: M + b.r * S }, svg);
    });
    var preview = el('line', { class: 'preview', x1: 0, y1: 0, x2: 0, y2: 0, visibility: 'hidden' }, svg);
    var legal = ctx.picked ? this.legalEnds(f, ctx.picked) : null;
    for (r = 0; r <= rows; r++) for (c = 0; c <= cols; c++) (function (r, c) {
      var name = self.dotName(r, c);
      if (ctx.pickDot) {
        var hit = el('circle', { class: 'hitdot', cx: M + c * S, cy: M + r * S, r: S / 2.6, tabindex: 0, role: 'button',
          'aria-label': 'Dot ' + name, 'data-dot': name }, svg);
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
    if (ctx.pickDot && !svg.arrowKeys) { svg.arrowKeys = true; Arena.arrowKeys(svg, '.hitdot'); }
  },
  // legalEnds lists the dots a line from p may end at: along its row and
  // column, until the first unit edge already drawn.
  legalEnds: function (f, p) {
    var out = {}, r, c;
    for (c = p.c - 1; c >= 0 && !f.h[p.r][c]; c--) out[this.dotName(p.r, c)] = true;
    for (c = p.c; c < f.cols && !f.h[p.r][c]; c++) out[this.dotName(p.r, c + 1)] = true;
    for (r = p.r - 1; r >= 0 && !f.v[r][p.c]; r--) out[this.dotName(r, p.c)] = true;
    for (r = p.r; r < f.rows && !f.v[r][p.c]; r++) out[this.dotName(r + 1, p.c)] = true;
    return out;
  },
  scores: function (f) { return f.scores || []; },
  mover: function (f) { return f.to_move; },
};

// Grid Royale: ore shaded in five steps, the zone, bases, units by owner
// with their cargo as a ring. Units keep their element between frames so a
// step moves them smoothly.
Arena.boards['grid-royale'] = {
  prepare: function (frame, prev) {
    var ore;
    if (frame.ore) {
      ore = new Int32Array(frame.width * frame.height);
      for (var y = 0; y < frame.height; y++) for (var x = 0; x < frame.width; x++) ore[y * frame.width + x] = frame.ore[y][x] | 0;
    } else {
      ore = prev ? new Int32Array(prev.oreFlat) : new Int32Array(frame.width * frame.height);
      (frame.ore_diff || []).forEach(function (d) { if (d[0] >= 0 && d[0] < ore.length) ore[d[0]] = d[1] | 0; });
    }
    var out = {};
    for (var k in frame) if (k !== 'ore' && k !== 'ore_diff') out[k] = frame[k];
    out.oreFlat = ore;
    return out;
  },
  level: function (o) { return o <= 0 ? 0 : o < 300 ? 1 : o < 800 ? 2 : o < 1800 ? 3 : 4; },
  draw: function (svg, f, ctx) {
    var W = f.width, el = Arena.el, st = svg._gr;
    if (!st || st.W !== W) {
      Arena.clear(svg);
      svg.setAttribute('viewBox', '0 0 ' + W + ' ' + W);
      st = svg._gr = { W: W, cells: [], units: {} };
      var cg = el('g', null, svg);
      for (var i = 0; i < W * W; i++) st.cells.push(el('rect', { class: 'cell', x: i % W, y: Math.floor(i / W), width: 1.02, height: 1.02 }, cg));
      st.outside = el('path', { class: 'outside' }, svg);
      st.zone = el('rect', { class: 'zone' }, svg);
      st.bases = el('g', null, svg);
      st.orders = el('g', null, svg);
      st.unitsG = el('g', null, svg);
      st.badges = el('g', null, svg);
      st.levels = new Int8Array(W * W).fill(-1);
    }
    st.ctx = ctx;
    svg.classList.toggle('noanim', !ctx.animate);
    for (i = 0; i < W * W; i++) {
      var lv = this.level(f.oreFlat[i]);
      if (st.levels[i] !== lv) { st.cells[i].setAttribute('class', 'cell ore' + lv); st.levels[i] = lv; }
    }
    var z = f.safe_zone || { x0: 0, y0: 0, x1: W - 1, y1: W - 1 };
    st.zone.setAttribute('x', z.x0); st.zone.setAttribute('y', z.y0);
    st.zone.setAttribute('width', z.x1 - z.x0 + 1); st.zone.setAttribute('height', z.y1 - z.y0 + 1);
    st.outside.setAttribute('d', 'M0 0H' + W + 'V' + W + 'H0Z M' + z.x0 + ' ' + z.y0 + 'V' + (z.y1 + 1) + 'H' + (z.x1 + 1) + 'V' + z.y0 + 'Z');
    st.outside.setAttribute('fill-rule', 'evenodd');
    Arena.clear(st.bases);
    (f.bases || []).forEach(function (b) {
      el('rect', { class: 'base s' + b.owner, x: b.x + 0.08, y: b.y + 0.08, width: 0.84, height: 0.84, rx: 0.15 }, st.bases);
    });
    var cap = (f.params && f.params.cargo_cap) || 1000, seen = {};
    (f.units || []).forEach(function (u) {
      seen[u.id] = true;
      var g = st.units[u.id];
      if (!g) {
        g = st.units[u.id] = el('g', { class: 'unit s' + u.owner, 'data-unit': u.id }, st.unitsG);
        el('circle', { class: 'body', r: 0.36 }, g);
        g._cargo = el('circle', { class: 'cargo', r: 0.2, transform: 'rotate(-90)' }, g);
        g.addEventListener('click', function () { var c = svg._gr.ctx; if (c && c.pickUnit) c.pickUnit(u.id); });
      }
      g.setAttribute('transform', 'translate(' + (u.x + 0.5) + ' ' + (u.y + 0.5) + ')');
      var frac = Math.max(0, Math.min(1, u.cargo / cap)), len = 2 * Math.PI * 0.2;
      g._cargo.setAttribute('stroke-dasharray', (frac * len).toFixed(3) + ' ' + len.toFixed(3));
      var cls = 'unit s' + u.owner + (ctx.mine === u.owner ? ' mine' : '') + (ctx.selected === u.id ? ' sel' : '');
      if (g.getAttribute('class') !== cls) g.setAttribute('class', cls);
    });
    for (var id in st.units) if (!seen[id]) { st.unitsG.removeChild(st.units[id]); delete st.units[id]; }
    // Several units on one cell (own units share their base): a count.
    Arena.clear(st.badges);
    var per = {};
    (f.units || []).forEach(function (u) { var k = u.x + ',' + u.y; per[k] = (per[k] || 0) + 1; });
    for (var cell in per) if (per[cell] > 1) {
      var xy = cell.split(','), b = el('text', { class: 'badge', x: +xy[0] + 0.97, y: +xy[1] + 0.3, 'text-anchor': 'end' }, st.badges);
      b.textContent = String(per[cell]);
    }
    Arena.clear(st.orders);
    if (ctx.orders) (f.units || []).forEach(function (u) {
      var d = ctx.orders[u.id], v = { MOVE_N: [0, -1], MOVE_S: [0, 1], MOVE_E: [1, 0], MOVE_W: [-1, 0] }[d];
      if (!v) return;
      var x = u.x + 0.5, y = u.y + 0.5;
      el('path', { class: 'order', d: 'M' + x + ' ' + y + 'L' + (x + v[0] * 0.85) + ' ' + (y + v[1] * 0.85) +
        'M' + (x + v[0] * 0.85 - v[1] * 0.18 - v[0] * 0.2) + ' ' + (y + v[1] * 0.85 - v[0] * 0.18 - v[1] * 0.2) + 'L' + (x + v[0] * 0.85) + ' ' + (y + v[1] * 0.85) +
        'L' + (x + v[0] * 0.85 + v[1] * 0.18 - v[0] * 0.2) + ' ' + (y + v[1] * 0.85 + v[0] * 0.18 - v[1] * 0.2) }, st.orders);
    });
  },
  scores: function (f) { return f.banks || []; },
  mover: function () { return -1; },
};
