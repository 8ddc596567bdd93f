// Grid Royale on the site: ore shaded in five steps, the zone, bases, units
// by owner with their cargo as a ring. Units keep their element between
// frames so a step moves them smoothly. The person gives each unit an order
// and ends the turn (docs/site.md, "A game's board").
'use strict';
(function () {
  var A = window.Arena;

  var B = Arena.boards['grid-royale'] = {
    delay: 180,
    keys: [['n, Shift+n', 'next, previous unit (or click one; playing)'], ['arrows, w a s d', 'move the unit (the arrows give orders, so step with j and l)'],
      ['x', 'stay'], ['p', 'spawn'], ['Enter', 'end the turn'], ['r', 'repeat all orders every turn']],
    // prepare keeps the ore map flat, rebuilt from the changes the server
    // sends after the first frame.
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
      var W = f.width, el = A.el, st = svg._gr;
      if (!st || st.W !== W) {
        A.clear(svg);
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
        var lv = B.level(f.oreFlat[i]);
        if (st.levels[i] !== lv) { st.cells[i].setAttribute('class', 'cell ore' + lv); st.levels[i] = lv; }
      }
      var z = f.safe_zone || { x0: 0, y0: 0, x1: W - 1, y1: W - 1 };
      st.zone.setAttribute('x', z.x0); st.zone.setAttribute('y', z.y0);
      st.zone.setAttribute('width', z.x1 - z.x0 + 1); st.zone.setAttribute('height', z.y1 - z.y0 + 1);
      st.outside.setAttribute('d', 'M0 0H' + W + 'V' + W + 'H0Z M' + z.x0 + ' ' + z.y0 + 'V' + (z.y1 + 1) + 'H' + (z.x1 + 1) + 'V' + z.y0 + 'Z');
      st.outside.setAttribute('fill-rule', 'evenodd');
      A.clear(st.bases);
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
      A.clear(st.badges);
      var per = {};
      (f.units || []).forEach(function (u) { var k = u.x + ',' + u.y; per[k] = (per[k] || 0) + 1; });
      for (var cell in per) if (per[cell] > 1) {
        var xy = cell.split(','), b = el('text', { class: 'badge', x: +xy[0] + 0.97, y: +xy[1] + 0.3, 'text-anchor': 'end' }, st.badges);
        b.textContent = String(per[cell]);
      }
      A.clear(st.orders);
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
    seatNote: function (f, seat) {
      if (!f.units) return '';
      var n = 0, cargo = 0;
      f.units.forEach(function (u) { if (u.owner === seat) { n++; cargo += u.cargo; } });
      return n + ' unit' + (n === 1 ? '' : 's') + ', ' + cargo + ' carried';
    },
    expectedTurns: function (f) { return f.max_turns || 400; },
    play: function (P) {
      var orders = {}, selected = null, repeat = false;
      var DIRS = { ArrowUp: 'MOVE_N', w: 'MOVE_N', ArrowDown: 'MOVE_S', s: 'MOVE_S', ArrowRight: 'MOVE_E', d: 'MOVE_E', ArrowLeft: 'MOVE_W', a: 'MOVE_W', x: 'STAY' };
      function mine(f) { return (f.units || []).filter(function (u) { return u.owner === P.seat; }); }
      function redraw() { P.redraw(); info(); }
      function select(id) { selected = id; redraw(); }
      function nextUnit(dir) {
        var us = mine(P.latest()); if (!us.length) { selected = null; redraw(); return; }
        var k = -1; us.forEach(function (u, i) { if (u.id === selected) k = i; });
        select(us[(k + dir + us.length) % us.length].id);
      }
      function order(d) {
        if (selected == null) nextUnit(1);
        if (selected == null) return;
        orders[selected] = d; redraw();
      }
      function endTurn() {
        var list = [];
        mine(P.latest()).forEach(function (u) { if (orders[u.id] && orders[u.id] !== 'STAY') list.push({ unit: u.id, do: orders[u.id] }); });
        P.send({ orders: list, spawn: spawn.checked });
        spawn.checked = false; // one spawn per tick: orders stay, a spawn does not
      }
      P.button('↑', 'Move north (↑ or w)', function () { order('MOVE_N'); });
      P.button('←', 'Move west (← or a)', function () { order('MOVE_W'); });
      P.button('↓', 'Move south (↓ or s)', function () { order('MOVE_S'); });
      P.button('→', 'Move east (→ or d)', function () { order('MOVE_E'); });
      P.button('Stay', 'Stay and dig (x)', function () { order('STAY'); });
      P.button('Next unit', 'Select the next unit (n)', function () { nextUnit(1); });
      P.button('All stay', 'Clear every order', function () { orders = {}; redraw(); });
      var lab = document.createElement('label'); lab.className = 'choice';
      var spawn = document.createElement('input'); spawn.type = 'checkbox'; spawn.id = 'spawn';
      lab.appendChild(spawn); lab.appendChild(document.createTextNode(' Spawn (p)')); P.controls.appendChild(lab);
      P.text('sep');
      var endBtn = P.button('End turn', 'Send the orders (Enter)', endTurn, 'primary');
      endBtn.id = 'end-turn';
      var repBtn = P.button('Repeat every turn: off', 'Keep ending turns with every unit on its last order (r)', function () { setRepeat(!repeat); });
      repBtn.id = 'repeat';
      var status = P.text('hint');
      function setRepeat(on) { repeat = on; repBtn.textContent = 'Repeat every turn: ' + (on ? 'on' : 'off'); repBtn.setAttribute('aria-pressed', on ? 'true' : 'false'); if (on) maybeAuto(); }
      // info says, in words, the selected unit and its order, or how many
      // units the person has.
      function info() {
        var us = mine(P.latest()), u = null;
        us.forEach(function (x) { if (x.id === selected) u = x; });
        status.textContent = u ? 'Unit ' + u.id + ' at (' + u.x + ', ' + u.y + '), cargo ' + u.cargo + ', order ' + (orders[u.id] || 'STAY') :
          us.length + ' unit' + (us.length === 1 ? '' : 's') + '; click one of yours or press n.';
      }
      function maybeAuto() { if (repeat && P.myTurn() && P.atLatest()) setTimeout(function () { if (repeat && P.myTurn()) endTurn(); }, 30); }
      P.onChange(maybeAuto);
      P.onChange(info);
      return {
        decorate: function (ctx, f, isLatest) {
          ctx.mine = P.seat; ctx.selected = selected;
          if (isLatest && !P.done()) {
            ctx.orders = orders;
            ctx.pickUnit = function (id) { (f.units || []).forEach(function (u) { if (u.id === id && u.owner === P.seat) select(id); }); };
          }
        },
        key: function (e) {
          if (P.done()) return false;
          var k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
          if (DIRS[k]) { order(DIRS[k]); return true; }
          if (k === 'n') { nextUnit(e.shiftKey ? -1 : 1); return true; }
          if (k === 'p') { spawn.checked = !spawn.checked; return true; }
          if (k === 'r') { setRepeat(!repeat); return true; }
          if (k === 'Enter' && e.target === document.body || k === 'Enter' && e.target.tagName === 'svg') { endTurn(); return true; }
          return false;
        },
        prompt: function () { return 'Your turn: give orders, then end the turn.'; },
      };
    },
  };
})();
