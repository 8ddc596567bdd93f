// A person's moves: the controls of each game, active while the server waits
// for this browser's answer. The answer goes to /s/ID/move as the same JSON a
// bot would send; the game judges it.
'use strict';
(function () {
  var A = window.Arena, V = A.viewer;
  if (!V || !V.mine || V.human < 0) return;
  var controls = document.getElementById('controls-play'), promptEl = document.getElementById('prompt');
  var leave = document.getElementById('leave');
  controls.hidden = false;
  var sending = false;
  function myTurn() { return V.prompt >= 0 && !V.done && !sending; }
  function atLatest() { return V.index === V.frames.length - 1; }
  function latest() { return V.prepared[V.prepared.length - 1]; }

  function send(answer) {
    if (!myTurn()) return;
    sending = true;
    var turn = V.prompt;
    fetch('/s/' + encodeURIComponent(V.id) + '/move?turn=' + turn, {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
      body: JSON.stringify(answer),
    }).then(function (r) {
      sending = false;
      if (r.ok) { if (V.prompt === turn) V.prompt = -1; V.describe(); V.draw(false); return; }
      return r.json().then(function (e) { V.setState('The move was not taken: ' + (e && e.error ? e.error : r.status)); });
    }, function () { sending = false; V.setState('The move could not be sent; try again.'); });
    V.draw(false);
  }

  function button(label, title, fn, cls) {
    var b = document.createElement('button');
    b.type = 'button'; b.className = 'btn' + (cls ? ' ' + cls : ''); b.textContent = label; if (title) b.title = title;
    b.addEventListener('click', fn);
    controls.appendChild(b);
    return b;
  }
  function text(cls) { var s = document.createElement('span'); s.className = cls || ''; controls.appendChild(s); return s; }

  if (leave) {
    leave.hidden = false;
    leave.addEventListener('click', function () {
      if (!confirm('Leave the game? The rest is played with the default move for you, and the replay is kept.')) return;
      fetch('/s/' + encodeURIComponent(V.id) + '/leave', { method: 'POST', credentials: 'same-origin' });
    });
  }

  var play = A.play = { decorate: function () {}, key: function () { return false; } };
  var G = V.game;

  function lastMoverWasMe() {
    var t = V.turns[V.turns.length - 1];
    if (!t || !t.seats) return false;
    for (var i = 0; i < t.seats.length; i++) { var s = t.seats[i]; if (s && s.seat === V.human && s.status !== 'ignored') return true; }
    return false;
  }

  function updatePrompt() {
    if (V.done) {
      promptEl.hidden = true; controls.hidden = true; if (leave) leave.hidden = true;
      var rm = document.getElementById('rematch'); if (rm) rm.hidden = false;
      return;
    }
    if (V.prompt < 0) { promptEl.hidden = true; return; }
    promptEl.hidden = false;
    promptEl.className = 'prompt';
    if (!atLatest()) { promptEl.textContent = 'Your move: press End (or ⏭) to return to the game.'; return; }
    if (G === 'dots-and-boxes' && lastMoverWasMe()) { promptEl.className = 'prompt extra'; promptEl.textContent = 'You closed a box: move again.'; return; }
    promptEl.textContent = G === 'dots-and-boxes' ? 'Your move: click an edge to draw it.' :
      G === 'lines-and-boxes' ? 'Your move: pick two dots on one row or column.' : 'Your turn: give orders, then end the turn.';
  }
  V.listeners.push(updatePrompt);

  if (G === 'dots-and-boxes') {
    play.decorate = function (ctx, f, isLatest) {
      if (myTurn() && isLatest) ctx.pickEdge = function (o, r, c) { send({ orient: o, r: r, c: c }); };
    };
    text('hint').textContent = 'Click or tap an edge; with the keyboard, Tab to an edge and press Enter.';
  }

  if (G === 'lines-and-boxes') {
    var picked = null, note = text('notation');
    var B = A.boards['lines-and-boxes'];
    var hint = text('hint'); hint.textContent = ' Click two dots, or drag from one to the other. Esc drops the first dot.';
    function showNote(f) {
      note.textContent = picked ? 'Your line: ' + B.dotName(picked.r, picked.c) + ' → …' : '';
    }
    play.decorate = function (ctx, f, isLatest) {
      if (!(myTurn() && isLatest)) { picked = null; showNote(); return; }
      ctx.picked = picked;
      ctx.pickDot = function (r, c, how) {
        if (picked && picked.r === r && picked.c === c) { if (how !== 'up') { picked = null; showNote(); V.draw(false); } return; }
        if (picked) {
          var legal = B.legalEnds(f, picked), name = B.dotName(r, c);
          if (legal[name]) {
            var a = B.dotName(picked.r, picked.c);
            picked = null; note.textContent = 'You drew ' + a + ' ' + name;
            send({ from: a, to: name });
            return;
          }
        }
        if (how === 'up') return;
        picked = { r: r, c: c }; showNote(); V.draw(false);
      };
    };
    document.getElementById('board').addEventListener('pointerup', function (e) {
      if (!picked || !myTurn()) return;
      var t = document.elementFromPoint(e.clientX, e.clientY), name = t && t.getAttribute && t.getAttribute('data-dot');
      if (!name) return;
      var p = B.parseDot(name);
      if (p && !(p.r === picked.r && p.c === picked.c)) {
        var f = latest(), legal = B.legalEnds(f, picked);
        if (legal[name]) { var a = B.dotName(picked.r, picked.c); picked = null; note.textContent = 'You drew ' + a + ' ' + name; send({ from: a, to: name }); }
      }
    });
    play.key = function (e) { if (e.key === 'Escape' && picked) { picked = null; showNote(); V.draw(false); return true; } return false; };
  }

  if (G === 'grid-royale') {
    var orders = {}, selected = null, repeat = false;
    var DIRS = { ArrowUp: 'MOVE_N', w: 'MOVE_N', ArrowDown: 'MOVE_S', s: 'MOVE_S', ArrowRight: 'MOVE_E', d: 'MOVE_E', ArrowLeft: 'MOVE_W', a: 'MOVE_W', x: 'STAY' };
    function mine(f) { return (f.units || []).filter(function (u) { return u.owner === V.human; }); }
    function redraw() { V.draw(false); info(); }
    function select(id) { selected = id; redraw(); }
    function nextUnit(dir) {
      var us = mine(latest()); if (!us.length) { selected = null; redraw(); return; }
      var k = -1; us.forEach(function (u, i) { if (u.id === selected) k = i; });
      select(us[(k + dir + us.length) % us.length].id);
    }
    function order(d) {
      if (selected == null) nextUnit(1);
      if (selected == null) return;
      orders[selected] = d; redraw();
    }
    function endTurn() {
      var f = latest(), list = [];
      mine(f).forEach(function (u) { if (orders[u.id] && orders[u.id] !== 'STAY') list.push({ unit: u.id, do: orders[u.id] }); });
      send({ orders: list, spawn: spawn.checked });
      spawn.checked = false; // one spawn per tick: orders stay, a spawn does not
    }
    var pad = document.createElement('span'); pad.className = 'pad';
    button('↑', 'Move north (↑ or w)', function () { order('MOVE_N'); });
    button('←', 'Move west (← or a)', function () { order('MOVE_W'); });
    button('↓', 'Move south (↓ or s)', function () { order('MOVE_S'); });
    button('→', 'Move east (→ or d)', function () { order('MOVE_E'); });
    button('Stay', 'Stay and dig (x)', function () { order('STAY'); });
    button('Next unit', 'Select the next unit (n)', function () { nextUnit(1); });
    button('All stay', 'Clear every order', function () { orders = {}; redraw(); });
    var lab = document.createElement('label'); lab.className = 'choice';
    var spawn = document.createElement('input'); spawn.type = 'checkbox'; spawn.id = 'spawn';
    lab.appendChild(spawn); lab.appendChild(document.createTextNode(' Spawn (p)')); controls.appendChild(lab);
    var sep = text('sep');
    var endBtn = button('End turn', 'Send the orders (Enter)', endTurn, 'primary');
    endBtn.id = 'end-turn';
    var repBtn = button('Repeat every turn: off', 'Keep ending turns with every unit on its last order (r)', function () { setRepeat(!repeat); });
    repBtn.id = 'repeat';
    var status = text('hint');
    function setRepeat(on) { repeat = on; repBtn.textContent = 'Repeat every turn: ' + (on ? 'on' : 'off'); repBtn.setAttribute('aria-pressed', on ? 'true' : 'false'); if (on) maybeAuto(); }
    function info() {
      var f = latest(), us = mine(f), u = null;
      us.forEach(function (x) { if (x.id === selected) u = x; });
      status.textContent = u ? 'Unit ' + u.id + ' at (' + u.x + ', ' + u.y + '), cargo ' + u.cargo + ', order ' + (orders[u.id] || 'STAY') :
        us.length + ' unit' + (us.length === 1 ? '' : 's') + '; click one of yours or press n.';
    }
    function maybeAuto() { if (repeat && myTurn() && atLatest()) setTimeout(function () { if (repeat && myTurn()) endTurn(); }, 30); }
    V.listeners.push(maybeAuto);
    V.listeners.push(info);
    play.decorate = function (ctx, f, isLatest) {
      ctx.mine = V.human; ctx.selected = selected;
      if (isLatest && !V.done) {
        ctx.orders = orders;
        ctx.pickUnit = function (id) { (f.units || []).forEach(function (u) { if (u.id === id && u.owner === V.human) select(id); }); };
      }
    };
    play.key = function (e) {
      if (V.done) return false;
      var k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (DIRS[k]) { order(DIRS[k]); return true; }
      if (k === 'n') { nextUnit(e.shiftKey ? -1 : 1); return true; }
      if (k === 'p') { spawn.checked = !spawn.checked; return true; }
      if (k === 'r') { setRepeat(!repeat); return true; }
      if (k === 'Enter' && e.target === document.body || k === 'Enter' && e.target.tagName === 'svg') { endTurn(); return true; }
      return false;
    };
  }
})();
