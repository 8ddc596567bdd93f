// The replay viewer: a live or finished match from /s/ID/events, drawn turn
// by turn, with transport controls, a timeline marked with failures, per-seat
// status and fuel charts, links to turns and keyboard shortcuts. The board
// is the game's own (Arena.boards[ID], docs/site.md); the viewer knows no
// particular game. Text from bots (names, answers, reasons) only ever goes
// through textContent.
'use strict';
(function () {
  var root = document.getElementById('viewer');
  if (!root) return;
  var A = window.Arena, el = A.el;
  var id = root.getAttribute('data-id'), gameID = root.getAttribute('data-game');
  var board = A.boards[gameID];
  var svg = document.getElementById('board');
  var statusEl = document.getElementById('v-state');
  if (!board) { statusEl.textContent = 'This game has no board on this site.'; return; }
  var V = A.viewer = {
    id: id, game: gameID, board: board, human: parseInt(root.getAttribute('data-human'), 10),
    mine: root.getAttribute('data-mine') === 'true',
    frames: [], prepared: [], turns: [], bots: [], players: 0, done: false, live: false, prompt: -1,
    index: 0, playing: false, follow: true, speed: 1, listeners: [], result: null,
  };
  var baseDelay = board.delay || 400;
  // The game's own keys for playing it, under "Keyboard shortcuts".
  var keyList = document.querySelector('.keys dl');
  if (keyList && board.keys) board.keys.forEach(function (k) {
    var dt = document.createElement('dt'), dd = document.createElement('dd');
    dt.textContent = String(k[0]); dd.textContent = String(k[1]);
    keyList.appendChild(dt); keyList.appendChild(dd);
  });
  var scrub = document.getElementById('scrub'), marks = document.getElementById('marks');
  var playBtn = document.getElementById('b-play'), turnLabel = document.getElementById('turnlabel');
  var failures = [];
  var FAIL = { illegal: 1, malformed: 1, fuel: 1, timeout: 1, crash: 1, retired: 1 };

  function seatName(i) {
    if (i === V.human) return V.mine ? 'You' : 'Human player';
    var b = V.bots[i];
    if (b == null) return 'seat ' + i;
    // Two seats of one bot (two house harvesters) are told apart by seat.
    var same = V.bots.filter(function (o) { return String(o) === String(b); }).length;
    return same > 1 ? String(b) + ' (seat ' + i + ')' : String(b);
  }
  function seatOf(turn, seat) {
    if (!turn || !turn.seats) return null;
    for (var i = 0; i < turn.seats.length; i++) if (turn.seats[i] && turn.seats[i].seat === seat) return turn.seats[i];
    return null;
  }
  // prepareAll has the board prepare every new frame, in order, with the
  // frame before it and the turn that led to it.
  function prepareAll() {
    while (V.prepared.length < V.frames.length) {
      var i = V.prepared.length;
      V.prepared.push(board.prepare ? board.prepare(V.frames[i], V.prepared[i - 1], V.turns[i - 1]) : V.frames[i]);
    }
  }
  // context is what the board is told beside the frame (docs/site.md).
  function context(i, animate) {
    return { animate: !!animate, turn: i, prev: i > 0 ? V.prepared[i - 1] : null, players: V.players, seatName: seatName,
      you: V.mine ? V.human : -1 };
  }

  V.draw = function (animate) {
    var i = V.index, f = V.prepared[i];
    if (!f) return;
    // The board's pickable parts carry data-pick: the focus stays on the
    // same part across a redraw.
    var focused = document.activeElement, fkey = focused && focused.getAttribute && svg.contains(focused) && focused.getAttribute('data-pick');
    var ctx = context(i, animate);
    if (A.play && A.play.decorate) A.play.decorate(ctx, f, i === V.frames.length - 1);
    board.draw(svg, f, ctx);
    wordsEl.textContent = board.describe ? String(board.describe(f, ctx) || '') : '';
    if (fkey) {
      var again = Array.prototype.find.call(svg.querySelectorAll('[data-pick]'), function (e) { return e.getAttribute('data-pick') === fkey; });
      if (again) again.focus();
    }
    scrub.max = String(V.frames.length - 1);
    scrub.value = String(i);
    turnLabel.textContent = V.queued ? 'not started' : 'turn ' + i + ' of ' + (V.frames.length - 1) + (V.done ? '' : ' so far');
    drawSeats();
    drawCursor();
    syncMoves();
    V.listeners.forEach(function (fn) { fn(); });
  };

  // The move list: an entry per turn (0: the start) naming each seat's
  // move in the game's words (board.moveWords), the turn shown highlighted
  // and kept in view within the list; a click, or ↑ ↓ in the list, goes to
  // a turn. One button of the list is in the Tab order, the current one.
  var wordsEl = document.getElementById('board-words');
  var moveList = document.getElementById('movelist'), moveItems = [], moveCurrent = null;
  var MOVE_WORDS_MAX = 240; // characters of one seat's move: a turn of 50 units stays one line or two
  function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '…' : s; }
  function moveText(rec, k) {
    var words = rec.action != null && board.moveWords ? board.moveWords(rec, V.prepared[k], V.prepared[k - 1], context(k, false)) : '';
    if (!words) words = rec.action != null ? JSON.stringify(rec.action) : 'no move';
    return clip((rec.status && rec.status !== 'ok' ? String(rec.status) + ': ' : '') + String(words), MOVE_WORDS_MAX);
  }
  function moveEntry(k) {
    var li = document.createElement('li'), b = document.createElement('button');
    li.setAttribute('data-turn', String(k));
    b.type = 'button'; b.tabIndex = -1;
    var n = document.createElement('span'); n.className = 'mv-n'; n.textContent = String(k);
    b.appendChild(n);
    var t = V.turns[k - 1], any = false;
    if (k > 0 && t && t.seats) t.seats.forEach(function (rec) {
      if (!rec || rec.status === 'ignored') return;
      var part = document.createElement('span'); part.className = 'mv-seat';
      var who = document.createElement('span'); who.className = 'mv-who sc' + (rec.seat % 8); who.textContent = seatName(rec.seat);
      part.appendChild(who); part.appendChild(document.createTextNode(': ' + moveText(rec, k)));
      b.appendChild(part); any = true;
    });
    if (!any) b.appendChild(document.createTextNode(k === 0 ? 'the start' : 'no move'));
    li.appendChild(b);
    return li;
  }
  function resetMoves() { A.clear(moveList); moveItems = []; moveCurrent = null; }
  function syncMoves() {
    if (moveItems.length < V.prepared.length) {
      var frag = document.createDocumentFragment();
      while (moveItems.length < V.prepared.length) { var li = moveEntry(moveItems.length); moveItems.push(li); frag.appendChild(li); }
      moveList.appendChild(frag);
    }
    var cur = moveItems[V.index] || null;
    if (cur === moveCurrent) return;
    if (moveCurrent) { moveCurrent.classList.remove('current'); moveCurrent.removeAttribute('aria-current'); moveCurrent.firstChild.tabIndex = -1; }
    moveCurrent = cur;
    if (!cur) return;
    cur.classList.add('current'); cur.setAttribute('aria-current', 'step'); cur.firstChild.tabIndex = 0;
    // Scroll the list, not the page.
    var top = cur.offsetTop, h = cur.offsetHeight;
    if (top < moveList.scrollTop || top + h > moveList.scrollTop + moveList.clientHeight) moveList.scrollTop = Math.max(0, top - (moveList.clientHeight - h) / 2);
  }
  moveList.addEventListener('click', function (e) {
    var li = e.target.closest && e.target.closest('li[data-turn]');
    if (!li) return;
    setPlaying(false); V.go(parseInt(li.getAttribute('data-turn'), 10), true); updateURL();
  });
  moveList.addEventListener('keydown', function (e) {
    var d = { ArrowDown: 1, ArrowUp: -1 }[e.key];
    if (!d) return;
    e.preventDefault();
    setPlaying(false); V.go(V.index + d, true); updateURL();
    if (moveCurrent) moveCurrent.firstChild.focus();
  });

  function drawSeats() {
    var list = document.getElementById('seats'), i = V.index, f = V.prepared[i], t = V.turns[i - 1];
    A.clear(list);
    var scores = board.scores(f), mover = board.mover ? board.mover(f) : -1;
    for (var s = 0; s < V.players; s++) {
      var li = document.createElement('li');
      li.className = 'seat sc' + s + (mover === s && !isOver() ? ' mover' : '');
      var score = document.createElement('span'); score.className = 'score'; score.textContent = scores[s] != null ? String(scores[s]) : '';
      var name = document.createElement('div'); name.className = 'name'; name.textContent = seatName(s);
      var sub = document.createElement('div'); sub.className = 'sub';
      var rec = seatOf(t, s);
      var note = board.seatNote ? board.seatNote(f, s) : '';
      if (note) {
        sub.appendChild(document.createTextNode(String(note)));
        sub.appendChild(document.createElement('br'));
      }
      if (rec && rec.status === 'ignored' && s === V.human) {
        sub.appendChild(document.createTextNode(mover === s ? '' : 'waiting'));
      } else if (rec) {
        var st = document.createElement('span'); st.className = 'st st-' + String(rec.status).replace(/[^a-z]/g, ''); st.textContent = String(rec.status);
        sub.appendChild(st);
        if (rec.fuel) sub.appendChild(document.createTextNode(' ' + Number(rec.fuel).toLocaleString() + ' fuel'));
        if (rec.reason) { sub.appendChild(document.createElement('br')); sub.appendChild(document.createTextNode(String(rec.reason))); }
      } else if (i > 0) {
        sub.appendChild(document.createTextNode('not asked this turn'));
      }
      li.appendChild(score); li.appendChild(name); li.appendChild(sub);
      list.appendChild(li);
    }
    var info = document.getElementById('turninfo');
    A.clear(info);
    if (t && t.seats) t.seats.forEach(function (rec) {
      if (!rec || rec.status === 'ignored') return;
      var h = document.createElement('div');
      h.textContent = seatName(rec.seat) + (rec.failed ? ' gave no answer the game could judge' : ' answered') +
        (rec.cut ? ' (cut to 4 KiB)' : '') + (rec.answer_sha256 ? ' (first 4 KiB of ' + Number(rec.answer_len).toLocaleString() + ' bytes, sha256 ' + String(rec.answer_sha256).slice(0, 12) + '…)' : '') + ':';
      var pre = document.createElement('pre'); pre.textContent = answerText(rec);
      info.appendChild(h); info.appendChild(pre);
      if (rec.stderr) { var e = document.createElement('pre'); e.textContent = String(rec.stderr); info.appendChild(e); }
    });
    var notes = board.notes ? board.notes(f, context(i, false)) : null;
    if (notes) info.appendChild(notes);
    if (V.done && V.index === V.frames.length - 1) {
      var res = document.createElement('p'); res.textContent = resultText(true); info.insertBefore(res, info.firstChild);
    }
  }
  // answerText shows an answer line as recorded: text, or base64 for bytes
  // that are not UTF-8 (replay version 2).
  function answerText(rec) {
    if (rec.answer != null && rec.answer !== '') return String(rec.answer);
    if (rec.answer_base64) return '(not UTF-8; base64) ' + String(rec.answer_base64);
    return '(no answer)';
  }
  function drawLogs() {
    var logs = (V.replayLogs || []).filter(function (l) { return l && (l.text || l.base64); });
    var box = document.getElementById('file-logs');
    if (!box) return;
    box.hidden = !logs.length;
    var list = document.getElementById('file-log-list');
    A.clear(list);
    logs.forEach(function (l) {
      var h3 = document.createElement('h3'); h3.textContent = 'Seat ' + l.seat + ': ' + seatName(l.seat);
      var pre = document.createElement('pre'); pre.className = 'code'; pre.textContent = l.text ? String(l.text) : '(not UTF-8; base64) ' + String(l.base64);
      list.appendChild(h3); list.appendChild(pre);
    });
  }
  function isOver() { return V.done && V.index === V.frames.length - 1; }
  // resultText says who won; full adds every other seat's score when
  // there are more than two (the header keeps to the winner).
  function resultText(full) {
    var r = V.result || {};
    if (!r.placement || !r.scores) return V.failed ? 'The match stopped: ' + V.failed : 'The match is over.';
    // Scores best first, as the placement ranks the seats.
    var ranked = r.placement.map(function (seat) { return r.scores[seat]; });
    var best = r.placement[0], tie = ranked.length > 1 && root.getAttribute('data-ties') === 'true' && ranked[0] === ranked[1];
    // A game whose score is a packed ranking key says it in words (board.scoreWords).
    var words = function (x) { return board && board.scoreWords ? String(board.scoreWords(x)) : String(x); };
    var scoreOf = function (seat) { return words(r.scores[seat]); };
    ranked = ranked.map(words);
    var you = V.human >= 0 && V.mine;
    if (tie) return (you ? 'Draw, ' : 'The game is a tie, ') + ranked.join(' to ') + '.';
    // The person who played is told the result first.
    var who = !you ? seatName(best) + ' wins' : best === V.human ? 'You won' : 'You lost; ' + seatName(best) + ' wins';
    if (ranked.length === 2) return who + ', ' + ranked.join(' to ') + '.';
    if (!full) return who + ' with ' + ranked[0] + '.';
    return who + ' with ' + ranked[0] + '; then ' + r.placement.slice(1).map(function (seat) { return seatName(seat) + ' ' + scoreOf(seat); }).join(', ') + '.';
  }

  // The timeline's failure marks and the per-seat charts.
  function collectFailures() {
    failures = [];
    V.turns.forEach(function (t, k) { if (t && t.seats && t.seats.some(function (s) { return s && FAIL[s.status]; })) failures.push(k + 1); });
  }
  function drawMarks() {
    var n = Math.max(1, V.frames.length - 1);
    marks.setAttribute('viewBox', '0 0 1000 10');
    A.clear(marks);
    el('rect', { class: 'mark-bg', x: 0, y: 3, width: 1000, height: 4 }, marks);
    failures.forEach(function (k) {
      var m = el('rect', { class: 'mark-fail', x: Math.max(0, (k / n) * 1000 - 2), y: 0, width: 4, height: 10 }, marks);
      var tt = el('title', null, m); tt.textContent = 'turn ' + k + ': a failed answer';
    });
  }
  var charts = document.getElementById('charts'), cursors = [];
  var COLORS = { ok: 'var(--st-ok)', illegal: 'var(--st-illegal)', malformed: 'var(--st-malformed)', fuel: 'var(--st-fuel)', timeout: 'var(--st-timeout)', crash: 'var(--st-crash)', retired: 'var(--st-retired)', ignored: 'var(--st-ignored)' };
  function drawCharts() {
    A.clear(charts); cursors = [];
    var n = Math.max(1, V.turns.length, V.done ? 0 : expectedTurns()), maxFuel = 1;
    V.turns.forEach(function (t) { (t.seats || []).forEach(function (s) { if (s && s.fuel > maxFuel) maxFuel = s.fuel; }); });
    for (var seat = 0; seat < V.players; seat++) {
      var row = document.createElement('div'); row.className = 'chart';
      var lbl = document.createElement('span'); lbl.className = 'lbl'; lbl.textContent = seatName(seat); lbl.title = seatName(seat);
      var fuelNote = document.createElement('small');
      var s = el('svg', { viewBox: '0 0 ' + n + ' 40', preserveAspectRatio: 'none', role: 'img', 'aria-label': 'Status and fuel per turn of ' + seatName(seat) });
      var pts = [], anyFuel = false;
      for (var k = 0; k < V.turns.length; k++) {
        var rec = seatOf(V.turns[k], seat);
        var color = rec ? COLORS[rec.status] || 'var(--muted)' : 'transparent';
        var r = el('rect', { x: k, y: 32, width: 1.02, height: 8 }, s); r.style.fill = color;
        var fuel = rec && rec.fuel ? rec.fuel : 0; if (fuel) anyFuel = true;
        pts.push(k + 0.5 + ',' + (30 - 28 * fuel / maxFuel).toFixed(2));
      }
      if (anyFuel) { var pl = el('polyline', { class: 'fuel-line', points: pts.join(' ') }, s); pl.style.stroke = 'var(--s' + seat + ')'; }
      else { lbl.appendChild(document.createElement('br')); fuelNote.textContent = 'no fuel metered'; lbl.appendChild(fuelNote); }
      cursors.push(el('line', { class: 'cursor', x1: 0, x2: 0, y1: 0, y2: 40 }, s));
      row.appendChild(lbl); row.appendChild(s); charts.appendChild(row);
    }
    drawCursor();
  }
  // expectedTurns is how long a match in progress will probably last, so a
  // live chart does not stretch its first turns over the whole width.
  function expectedTurns() {
    return board.expectedTurns && V.prepared[0] ? board.expectedTurns(V.prepared[0]) || 0 : 0;
  }
  function drawCursor() {
    cursors.forEach(function (c) { c.setAttribute('x1', V.index - 0.5); c.setAttribute('x2', V.index - 0.5); });
  }
  var chartTimer = null;
  function scheduleCharts() {
    if (chartTimer) return;
    chartTimer = setTimeout(function () { chartTimer = null; collectFailures(); drawMarks(); drawCharts(); }, 300);
  }

  // Transport.
  var timer = null;
  V.go = function (i, animate) {
    i = Math.max(0, Math.min(V.frames.length - 1, i | 0));
    var forward = i === V.index + 1;
    V.index = i;
    V.follow = i === V.frames.length - 1;
    V.draw(animate !== false && forward);
  };
  function tick() {
    if (V.index >= V.frames.length - 1) { if (V.done) setPlaying(false); timer = setTimeout(tick, baseDelay / V.speed); return; }
    V.go(V.index + 1, V.speed <= 4);
    timer = setTimeout(tick, baseDelay / V.speed);
  }
  function setPlaying(on) {
    V.playing = on;
    document.getElementById('play-icon').setAttribute('d', on ? 'M4 3h3v10H4zM9 3h3v10H9z' : 'M4 3v10l9-5z');
    playBtn.setAttribute('aria-label', on ? 'Pause' : 'Play');
    clearTimeout(timer); timer = null;
    if (on) {
      if (V.index >= V.frames.length - 1 && V.done) V.go(0, false);
      timer = setTimeout(tick, baseDelay / V.speed);
    } else updateURL();
  }
  function updateURL() {
    var u = new URL(location.href);
    u.searchParams.set('turn', String(V.index));
    history.replaceState(null, '', u.pathname + u.search);
  }
  function setSpeed(s) {
    V.speed = s;
    document.getElementById('speed').value = String(s);
    if (V.playing) { clearTimeout(timer); timer = setTimeout(tick, baseDelay / V.speed); }
  }
  var SPEEDS = [0.25, 0.5, 1, 2, 4, 10];
  function stepFailure(dir) {
    var list = dir > 0 ? failures : failures.slice().reverse();
    for (var k = 0; k < list.length; k++) if (dir > 0 ? list[k] > V.index : list[k] < V.index) { setPlaying(false); V.go(list[k]); updateURL(); return; }
  }
  playBtn.addEventListener('click', function () { setPlaying(!V.playing); });
  document.getElementById('b-start').addEventListener('click', function () { setPlaying(false); V.go(0); updateURL(); });
  document.getElementById('b-end').addEventListener('click', function () { setPlaying(false); V.go(V.frames.length - 1); updateURL(); });
  document.getElementById('b-prev').addEventListener('click', function () { setPlaying(false); V.go(V.index - 1); updateURL(); });
  document.getElementById('b-next').addEventListener('click', function () { setPlaying(false); V.go(V.index + 1); updateURL(); });
  document.getElementById('speed').addEventListener('change', function (e) { setSpeed(parseFloat(e.target.value) || 1); });
  scrub.addEventListener('input', function () { setPlaying(false); V.go(parseInt(scrub.value, 10), false); });
  scrub.addEventListener('change', updateURL);
  document.getElementById('copy-link').addEventListener('click', function (e) {
    updateURL();
    var btn = e.target;
    if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(function () { btn.textContent = 'Link copied'; }, function () { btn.textContent = 'Link in the address bar'; });
    else btn.textContent = 'Link in the address bar';
  });
  document.addEventListener('keydown', function (e) {
    var t = e.target, tag = t && t.tagName;
    if (e.defaultPrevented) return; // a board's own keys (moving between edges, playing one)
    if (e.ctrlKey || e.metaKey || e.altKey || tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (A.play && A.play.key && A.play.key(e)) { e.preventDefault(); return; }
    if (tag === 'BUTTON' && (e.key === ' ' || e.key === 'Enter')) return;
    var k = e.key, handled = true;
    if (k === ' ' || k === 'k') setPlaying(!V.playing);
    else if (k === 'ArrowRight' || k === 'l') { setPlaying(false); V.go(V.index + 1); updateURL(); }
    else if (k === 'ArrowLeft' || k === 'j') { setPlaying(false); V.go(V.index - 1); updateURL(); }
    else if (k === 'Home') { setPlaying(false); V.go(0); updateURL(); }
    else if (k === 'End') { setPlaying(false); V.go(V.frames.length - 1); updateURL(); }
    else if (k === ']') stepFailure(1);
    else if (k === '[') stepFailure(-1);
    else if (k === '+' || k === '=') setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(V.speed) + 1)]);
    else if (k === '-') setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(V.speed) - 1)]);
    else handled = false;
    if (handled) e.preventDefault();
  });

  function setState(text) { statusEl.textContent = text; }
  V.setState = setState;
  function describe() {
    if (V.failed) return 'The match stopped: ' + V.failed;
    if (V.done) return 'Finished after ' + (V.frames.length - 1) + ' turns. ' + resultText();
    if (V.queued) return 'Queued: the match waits for a free worker, and is shown here from its first turn.';
    if (V.prompt >= 0 && V.mine) return 'Your move.';
    if (V.human >= 0) return V.mine ? 'The house bot is thinking…' : 'Live: a person is playing.';
    return root.getAttribute('data-match') !== '0' ? 'Live: the bots are playing.' : 'Live: the house bots are playing.';
  }
  V.describe = function () { setState(describe()); };

  // Data arrives as server-sent events; a finished match sends one snapshot.
  var wanted = parseInt(new URL(location.href).searchParams.get('turn'), 10);
  function onInit(d) {
    // A second snapshot is the final one of a match this page watched live:
    // it ends on the final state (or where the visitor scrubbed to), never
    // back at turn 0.
    var again = V.frames.length > 0, keep = again && !V.follow ? V.index : -1;
    V.bots = d.bots || []; V.players = d.players | 0; V.done = !!d.done; V.live = !!d.live; V.queued = !!d.queued && !V.done;
    V.prompt = d.prompt == null ? -1 : d.prompt; V.failed = d.failed || '';
    var rep = d.replay || {};
    V.turns = (rep.turns || []).slice(0, Math.max(0, (d.frames || []).length - 1));
    V.frames = d.frames || []; V.prepared = [];
    resetMoves();
    V.result = rep.result || null;
    V.replayLogs = rep.logs || [];
    drawLogs();
    prepareAll();
    collectFailures(); drawMarks(); drawCharts();
    var start = V.frames.length - 1, autoplay = false;
    if (!isNaN(wanted)) { start = Math.max(0, Math.min(start, wanted)); wanted = NaN; V.follow = start === V.frames.length - 1; }
    else if (keep >= 0) start = Math.min(start, keep);
    else if (V.done && !again && start > 0) { start = 0; autoplay = true; } // a finished match plays from its start
    V.index = start;
    V.draw(false);
    V.describe();
    document.getElementById('dl').hidden = !V.done;
    if (autoplay) setPlaying(true);
  }
  function onTurn(d) {
    V.queued = false;
    V.turns.push(d.turn); V.frames.push(d.frame);
    prepareAll();
    if (V.follow && !V.playing) V.go(V.frames.length - 1, true);
    else { scrub.max = String(V.frames.length - 1); turnLabel.textContent = 'turn ' + V.index + ' of ' + (V.frames.length - 1) + ' so far'; syncMoves(); }
    V.prompt = -1;
    scheduleCharts();
    V.describe();
  }
  var es = new EventSource(root.getAttribute('data-events'));
  es.addEventListener('init', function (e) { onInit(JSON.parse(e.data)); });
  es.addEventListener('turn', function (e) { onTurn(JSON.parse(e.data)); });
  es.addEventListener('progress', function (e) {
    var d = JSON.parse(e.data);
    setState('Live: turn ' + d.turn + '. This view joined after the start, so the board is shown when the match ends.');
  });
  es.addEventListener('prompt', function (e) {
    var d = JSON.parse(e.data); V.prompt = d.turn;
    if (V.follow) V.go(V.frames.length - 1, false);
    V.describe();
    V.listeners.forEach(function (fn) { fn(); });
  });
  es.addEventListener('end', function (e) {
    es.close();
    if (V.done) return;
    var d = JSON.parse(e.data || '{}');
    V.done = true; V.live = false; V.queued = false; V.prompt = -1; V.failed = d.failed || '';
    V.result = d.result || null;
    document.getElementById('dl').hidden = false;
    collectFailures(); drawMarks(); drawCharts();
    if (V.follow) V.go(V.frames.length - 1, false); else V.draw(false);
    V.describe();
  });
  es.onerror = function () { if (!V.done) setState('Connection lost; trying again…'); };
})();
