// A person's moves, active while the server waits for this browser's
// answer: the page's side (P) and the game's input, which the game's board
// gives (Arena.boards[ID].play, docs/site.md). The answer goes to
// /s/ID/move as the same JSON a bot would send; the game judges it.
'use strict';
(function () {
  var A = window.Arena, V = A.viewer;
  if (!V || !V.mine || V.human < 0 || !V.board.play) return;
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

  function lastTurn() { return V.turns[V.turns.length - 1] || null; }

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
    var p = input && input.prompt ? input.prompt() : '';
    if (p && typeof p === 'object') { promptEl.className = p.extra ? 'prompt extra' : 'prompt'; p = p.text; }
    promptEl.textContent = p ? String(p) : 'Your move.';
  }
  V.listeners.push(updatePrompt);

  var input = V.board.play({
    seat: V.human, svg: document.getElementById('board'), controls: controls,
    myTurn: myTurn, atLatest: atLatest, latest: latest, lastTurn: lastTurn,
    done: function () { return V.done; },
    send: send,
    redraw: function () { V.draw(false); },
    onChange: function (fn) { V.listeners.push(fn); },
    button: button, text: text,
  }) || {};
  A.play = {
    decorate: function (ctx, f, isLatest) { if (input.decorate) input.decorate(ctx, f, isLatest); },
    key: function (e) { return input.key ? !!input.key(e) : false; },
  };
})();
