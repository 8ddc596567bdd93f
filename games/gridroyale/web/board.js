// Grid Royale on the site: ore shaded in five steps, the zone, bases, units
// by owner with their cargo as a ring. Units keep their element between
// frames so a step moves them smoothly. The person gives each unit an order
// and ends the turn (docs/site.md, "A game's board").
'use strict';
(function () {
  var A = window.Arena;

  var WORD = { MOVE_N: 'north', MOVE_S: 'south', MOVE_E: 'east', MOVE_W: 'west', STAY: 'stay' };
  function cellWords(x, y) { return 'column ' + x + ', row ' + y; }
  function ids(list) { return (list.length > 1 ? 'units ' : 'unit ') + list.slice(0, -1).join(', ') + (list.length > 1 ? ' and ' : '') + list[list.length - 1]; }
  // unitWords says where a unit is, the ore under it and what it carries.
  function unitWords(f, u) {
    return 'unit ' + u.id + ' at ' + cellWords(u.x, u.y) + ', ore ' + (f.oreFlat[u.y * f.width + u.x] | 0) + ' here, carrying ' + u.cargo;
  }

  var B = Arena.boards['grid-royale'] = {
    delay: 180,
    keys: [['Tab, arrows on the board', 'to one of your units (playing)'], ['n, Shift+n', 'next, previous unit (or click one)'],
      ['w a s d (arrows off the board)', 'order the unit to move (the arrows give orders, so step with j and l)'],
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
        // The person's own units are in the Tab order while they may give
        // orders, each read out in words with its order.
        if (ctx.pickUnit && ctx.mine === u.owner) {
          g.setAttribute('tabindex', '0'); g.setAttribute('role', 'button'); g.setAttribute('data-pick', 'u' + u.id);
          g.setAttribute('aria-label', 'Your ' + unitWords(f, u) + '; order: ' + WORD[(ctx.orders && ctx.orders[u.id]) || 'STAY']);
        } else if (g.hasAttribute('tabindex')) {
          ['tabindex', 'role', 'data-pick', 'aria-label'].forEach(function (a) { g.removeAttribute(a); });
        }
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
    // describe is the board in words: the turn, the safe zone, each seat's
    // bank, units and cargo, and the person's units one by one.
    describe: function (f, ctx) {
      var z = f.safe_zone || { x0: 0, y0: 0, x1: f.width - 1, y1: f.height - 1 }, units = f.units || [];
      var out = 'Turn ' + f.turn + ' of ' + (f.max_turns || 400) + '. Safe zone: columns ' + z.x0 + ' to ' + z.x1 + ', rows ' + z.y0 + ' to ' + z.y1 + '.';
      for (var seat = 0; seat < (f.banks || []).length; seat++) {
        var n = 0, cargo = 0, base = null;
        units.forEach(function (u) { if (u.owner === seat) { n++; cargo += u.cargo; } });
        (f.bases || []).forEach(function (b) { if (b.owner === seat) base = b; });
        out += ' ' + ctx.seatName(seat) + ': bank ' + f.banks[seat] + ', ' + n + ' unit' + (n === 1 ? '' : 's') + ' carrying ' + cargo +
          (base ? ', base at ' + cellWords(base.x, base.y) : '') + '.';
      }
      var mine = units.filter(function (u) { return u.owner === ctx.you; });
      if (mine.length) out += ' Your ' + mine.map(function (u) { return unitWords(f, u); }).join('; ') + '.';
      return out;
    },
    // moveWords groups a seat's orders by direction and says when it
    // spawned (a unit of its that was not there before).
    moveWords: function (rec, f, prev) {
      var a = rec.action || {}, by = {}, parts = [];
      (a.orders || []).forEach(function (o) { if (WORD[o.do] && o.do !== 'STAY') (by[o.do] = by[o.do] || []).push(o.unit | 0); });
      ['MOVE_N', 'MOVE_E', 'MOVE_S', 'MOVE_W'].forEach(function (d) { if (by[d]) parts.push(ids(by[d]) + ' ' + WORD[d]); });
      if (!parts.length) parts.push('every unit stays');
      if (a.spawn) {
        var before = {}, born = [];
        ((prev && prev.units) || []).forEach(function (u) { before[u.id] = true; });
        (f.units || []).forEach(function (u) { if (u.owner === rec.seat && !before[u.id]) born.push(u.id); });
        parts.push(born.length ? 'spawned ' + ids(born) : 'asked to spawn, none spawned');
      }
      return parts.join(', ');
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
        if (!P.myTurn()) return; // Spawn stays ticked for the turn it was meant for
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
        var f = P.latest(), us = mine(f), u = null;
        us.forEach(function (x) { if (x.id === selected) u = x; });
        status.textContent = u ? 'Your ' + unitWords(f, u) + '; order: ' + WORD[orders[u.id] || 'STAY'] + '.' :
          us.length + ' unit' + (us.length === 1 ? '' : 's') + '; click one of yours, press n, or Tab to the board.';
      }
      // On the board the arrow keys move between the person's units (the
      // nearest in that direction; units sharing a cell in the order of
      // their ids) and Enter ends the turn; w a s d give the orders.
      P.svg.addEventListener('keydown', function (e) {
        var t = e.target, id = t && t.getAttribute && t.getAttribute('data-unit');
        if (id == null || !t.hasAttribute('tabindex')) return;
        var dir = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] }[e.key];
        if (e.key === 'Enter') { e.preventDefault(); endTurn(); return; }
        if (!dir) return;
        e.preventDefault();
        var us = mine(P.latest()), from = null, best = null, bestScore = Infinity;
        us.forEach(function (u) { if (String(u.id) === id) from = u; });
        if (!from) return;
        us.forEach(function (u) {
          if (u === from) return;
          var dx = u.x - from.x, dy = u.y - from.y, along = dx * dir[0] + dy * dir[1], across = Math.abs(dx * dir[1] - dy * dir[0]);
          if (!dx && !dy) along = (u.id > from.id) === (dir[0] + dir[1] > 0) ? 0.01 * Math.abs(u.id - from.id) : -1;
          if (along <= 0) return;
          var score = along + 2 * across;
          if (score < bestScore) { bestScore = score; best = u; }
        });
        var g = best && P.svg.querySelector('[data-unit="' + best.id + '"]');
        if (g) g.focus();
      });
      P.svg.addEventListener('focusin', function (e) {
        var id = e.target && e.target.getAttribute && e.target.getAttribute('data-unit');
        if (id != null && e.target.hasAttribute('tabindex') && String(selected) !== id) select(parseInt(id, 10));
      });
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
