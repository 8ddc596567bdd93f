// Snake's board: the grid with y counted from the bottom as in Battlesnake,
// food, every snake in its seat's colour (a thick line through its body, a
// head with eyes looking the way it went), each snake's length and health,
// and the snakes that went out, faded where they died for a few turns and
// listed with their turn. Text from bots (shouts) only ever goes through
// textContent.
'use strict';
(function () {
  var A = window.Arena, el = A.el;
  var FADE_TURNS = 6; // how long a snake that went out stays on the board, faded
  var DIRS = { up: [0, 1], down: [0, -1], left: [-1, 0], right: [1, 0] };

  function pt(p) { return { x: p.x | 0, y: p.y | 0 }; }
  function same(a, b) { return a.x === b.x && a.y === b.y; }
  function seatOf(id) { var m = /^seat-(\d+)$/.exec(String(id)); return m ? parseInt(m[1], 10) : -1; }

  // heading is the direction from neck to head, "up" while they share a cell.
  function heading(body) {
    if (body.length < 2) return 'up';
    var h = body[0], n = body[1];
    if (h.x === n.x + 1) return 'right';
    if (h.x === n.x - 1) return 'left';
    if (h.y === n.y - 1) return 'down';
    return 'up';
  }


  // movedBodies is every snake of prev after this turn's move: the live ones
  // as the frame has them, the ones that went out moved by their recorded
  // action (or straight on), tail dropped.
  function movedBodies(prev, f, turn) {
    var out = {}, actions = {};
    ((turn && turn.seats) || []).forEach(function (r) { if (r && r.action && DIRS[r.action.move]) actions[r.seat] = r.action.move; });
    f.snakes.forEach(function (s) { out[s.seat] = s.body; });
    prev.snakes.forEach(function (s) {
      if (out[s.seat]) return;
      var v = DIRS[actions[s.seat] || s.heading], h = s.body[0];
      out[s.seat] = [{ x: h.x + v[0], y: h.y + v[1] }].concat(s.body.slice(0, -1));
    });
    return out;
  }
  // cause says why snake s (of prev) went out, judged as the rules judge:
  // hunger and walls first, then bodies, then meeting heads.
  function cause(s, body, moved, prev, f) {
    var h = body[0];
    if (h.x < 0 || h.y < 0 || h.x >= f.width || h.y >= f.height) return 'hit a wall';
    var ate = prev.food.some(function (p) { return same(p, h); });
    if (s.health <= 1 && !ate) return 'starved';
    for (var k = 1; k < body.length; k++) if (same(body[k], h)) return 'bit itself';
    var other = -1, met = -1;
    Object.keys(moved).forEach(function (seat) {
      seat = +seat;
      if (seat === s.seat) return;
      var o = moved[seat];
      for (var k = 1; k < o.length; k++) if (same(o[k], h)) other = seat;
      if (same(o[0], h)) met = seat;
    });
    if (other >= 0) return 'ran into snake ' + other;
    if (met >= 0) return 'lost a head-on meeting with snake ' + met;
    return 'went out';
  }

  var B = {
    // prepare keeps what a frame (seat 0's observation) does not say: the
    // snakes that went out, with the turn and where they were.
    prepare: function (frame, prev, turn) {
      var b = frame.board || {}, W = b.width | 0, H = b.height | 0;
      var out = { turn: frame.turn | 0, width: W, height: H, food: (b.food || []).map(pt), snakes: [], gone: [] };
      (b.snakes || []).forEach(function (s) {
        var seat = seatOf(s.id);
        if (seat < 0) return;
        var body = (s.body || []).map(pt);
        if (!body.length) return;
        out.snakes.push({ seat: seat, body: body, health: s.health | 0, length: body.length, shout: String(s.shout || ''), heading: heading(body) });
      });
      if (prev) {
        var alive = {};
        out.snakes.forEach(function (s) { alive[s.seat] = true; });
        out.gone = prev.gone.slice();
        var moved = movedBodies(prev, out, turn);
        prev.snakes.forEach(function (s) {
          if (alive[s.seat]) return;
          var body = moved[s.seat];
          out.gone.push({ seat: s.seat, body: body, health: Math.max(0, s.health - 1), length: s.length, out: out.turn, cause: cause(s, body, moved, prev, out) });
        });
      }
      return out;
    },
    draw: function (svg, f, ctx) {
      var W = f.width, H = f.height, st = svg._snake;
      if (!st || st.W !== W || st.H !== H) {
        A.clear(svg);
        svg.setAttribute('viewBox', '-0.1 -0.1 ' + (W + 0.2) + ' ' + (H + 0.2));
        st = svg._snake = { W: W, H: H };
        var grid = el('g', null, svg);
        for (var y = 0; y < H; y++) for (var x = 0; x < W; x++) {
          el('rect', { class: (x + y) % 2 ? 'sn-cell odd' : 'sn-cell', x: x, y: y, width: 1.02, height: 1.02 }, grid);
        }
        el('rect', { class: 'sn-frame', x: 0, y: 0, width: W, height: H }, svg);
        st.gone = el('g', null, svg);
        st.food = el('g', null, svg);
        st.snakes = el('g', null, svg);
        st.next = el('g', null, svg);
      }
      var name = seatNamer(ctx);
      // Screen y grows downwards; the game's y grows upwards.
      function cx(p) { return p.x + 0.5; }
      function cy(p) { return H - 1 - p.y + 0.5; }
      A.clear(st.food);
      f.food.forEach(function (p) {
        el('circle', { class: 'sn-food', cx: cx(p), cy: cy(p), r: 0.28, 'data-food': p.x + ',' + p.y }, st.food);
      });
      A.clear(st.snakes);
      A.clear(st.gone);
      f.gone.forEach(function (s) {
        if (f.turn - s.out >= FADE_TURNS) return;
        var g = el('g', { class: 'sn-gone', 'data-gone': s.seat }, st.gone);
        g.style.opacity = String(0.45 * (1 - (f.turn - s.out) / FADE_TURNS));
        drawSnake(g, s, true);
      });
      f.snakes.forEach(function (s) {
        var g = el('g', { 'data-snake': s.seat }, st.snakes);
        drawSnake(g, s, false);
      });
      function drawSnake(g, s, faded) {
        var body = s.body.filter(function (p, i) { return i === 0 || !same(p, s.body[i - 1]); });
        var d = '';
        body.forEach(function (p, i) {
          // Parts off the board (a snake that went out through a wall) are
          // drawn at the edge.
          var q = { x: Math.max(-0.4, Math.min(W - 0.6, p.x)), y: Math.max(-0.4, Math.min(H - 0.6, p.y)) };
          d += (i ? 'L' : 'M') + cx(q).toFixed(2) + ' ' + cy(q).toFixed(2);
        });
        if (body.length === 1) d += 'h0.001';
        el('path', { class: 'sn-body s' + s.seat % 8, d: d }, g);
        var h = s.body[0], hx = Math.max(-0.4, Math.min(W - 0.6, h.x)), hy = Math.max(-0.4, Math.min(H - 0.6, h.y));
        el('circle', { class: 'sn-head s' + s.seat % 8 + (ctx.mine === s.seat && !faded ? ' mine' : ''), cx: hx + 0.5, cy: H - 1 - hy + 0.5, r: 0.43 }, g);
        // Eyes, looking the way the snake went.
        var v = DIRS[heading(s.body)], ex = hx + 0.5 + v[0] * 0.16, ey = H - 1 - hy + 0.5 - v[1] * 0.16;
        [-1, 1].forEach(function (side) {
          el('circle', { class: 'sn-eye', cx: ex + side * v[1] * 0.17, cy: ey + side * v[0] * 0.17, r: 0.09 }, g);
        });
        var t = el('title', null, g);
        t.textContent = name(s.seat) + ': ' + (faded ? 'out on turn ' + s.out + ', ' + s.cause : snakeWords(s));
      }
      // The next move a person chose (or the default, straight on), as an
      // arrow from their head.
      A.clear(st.next);
      if (ctx.nextMove) {
        var me = B.snakeOf(f, ctx.mine);
        if (me) {
          var v = DIRS[ctx.nextMove.move], x0 = cx(me.body[0]), y0 = cy(me.body[0]), x1 = x0 + v[0] * 0.95, y1 = y0 - v[1] * 0.95;
          el('path', { d: 'M' + x0 + ' ' + y0 + 'L' + x1 + ' ' + y1 + 'M' + (x1 - v[0] * 0.3 - v[1] * 0.22) + ' ' + (y1 + v[1] * 0.3 - v[0] * 0.22) +
            'L' + x1 + ' ' + y1 + 'L' + (x1 - v[0] * 0.3 + v[1] * 0.22) + ' ' + (y1 + v[1] * 0.3 + v[0] * 0.22), 'data-next': ctx.nextMove.move, class: ctx.nextMove.chosen ? 'sn-next' : 'sn-next default' }, st.next);
        }
      }
    },

    snakeOf: function (f, seat) {
      for (var i = 0; i < f.snakes.length; i++) if (f.snakes[i].seat === seat) return f.snakes[i];
      return null;
    },
    // scores are the lengths: what the seat list shows beside each name.
    scores: function (f) {
      var out = [];
      f.snakes.forEach(function (s) { out[s.seat] = s.length; });
      return out;
    },
    // scoreWords unpacks a final score (turns survived x 1,000,000 + length
    // x 1,000 + health if alive: games/snake/state.go) for the result line.
    scoreWords: function (score) {
      var n = Number(score);
      if (!isFinite(n) || n < 0) return String(score);
      var turns = Math.floor(n / 1e6), length = Math.floor(n / 1e3) % 1000;
      return turns + (turns === 1 ? ' turn' : ' turns') + ', length ' + length;
    },
    mover: function () { return -1; },
    // seatNote is the line under a seat's name: length and health, or when
    // and why it went out.
    seatNote: function (f, seat) {
      var s = B.snakeOf(f, seat);
      if (s) return 'length ' + s.length + ', health ' + s.health + (s.shout ? '; says “' + s.shout.slice(0, 60) + '”' : '');
      var g = goneOf(f, seat);
      return g ? 'out on turn ' + g.out + ': ' + g.cause : '';
    },
    // A 2-player match on the default board lasts a few hundred turns.
    expectedTurns: function () { return 200; },
    delay: 200,
    // describe is the board in words, seen by the person playing (ctx.you)
    // or by a spectator.
    describe: function (f, ctx) {
      var seat = ctx.you == null ? -1 : ctx.you, name = seatNamer(ctx), parts = ['Turn ' + f.turn + '.'], me = B.snakeOf(f, seat);
      if (me) parts.push('Your snake: ' + snakeWords(me) + '.');
      else if (seat >= 0) parts.push('Your snake is out.');
      parts.push(f.food.length ? 'Food at ' + f.food.map(cellWords).join('; ') + '.' : 'No food on the board.');
      f.snakes.forEach(function (s) { if (s.seat !== seat) parts.push(name(s.seat) + ': ' + snakeWords(s) + '.'); });
      var gone = f.gone.map(function (s) { return name(s.seat) + ' on turn ' + s.out + ' (' + s.cause + ')'; });
      if (gone.length) parts.push('Out: ' + gone.join(', ') + '.');
      return parts.join(' ');
    },
    // moveWords is the way a snake went, and what came of it: food eaten,
    // or how it went out.
    moveWords: function (rec, f, prev) {
      var m = rec.action && rec.action.move;
      if (!DIRS[m]) return '';
      var now = B.snakeOf(f, rec.seat), before = prev && B.snakeOf(prev, rec.seat), g = goneOf(f, rec.seat);
      if (!now && g && g.out === f.turn) return m + ', out: ' + g.cause;
      return m + (now && before && now.length > before.length ? ', ate' : '');
    },
    heading: heading,
  };

  // play is a person's snake: the arrow keys (or w a s d), a swipe or a tap
  // beside the head set the next move, shown as an arrow from the head
  // (dashed while it is the default, straight on). The move is sent when
  // the turn's time runs out at the chosen pace, or at once with Enter or
  // Space; at the pace "wait for me" an arrow key sends it at once.
  B.play = function (P) {
    var PACES = [['wait', 'Wait for my key', 0], ['slow', 'Slow (1 s a turn)', 1000], ['normal', 'Normal (0.6 s a turn)', 600], ['fast', 'Fast (0.3 s a turn)', 300]];
    var chosen = null, pace = 600, started = false, paused = false, timer = null, timerTurn = -1;
    var KEYS = { ArrowUp: 'up', w: 'up', ArrowDown: 'down', s: 'down', ArrowLeft: 'left', a: 'left', ArrowRight: 'right', d: 'right' };
    var OPPOSITE = { up: 'down', down: 'up', left: 'right', right: 'left' };
    function mine() { return B.snakeOf(P.latest(), P.seat); }
    function straight() { var me = mine(); return me ? me.heading : 'up'; }
    function next() { return chosen || straight(); }
    function send() {
      if (!P.myTurn() || !mine()) return;
      var move = next();
      clearTimeout(timer); timer = null; timerTurn = -1;
      chosen = null;
      P.send({ move: move });
    }
    function choose(move) {
      var me = mine();
      // Back into its own neck is certain death; a person means "not that way".
      if (me && me.length > 1 && !same(me.body[0], me.body[1]) && move === OPPOSITE[me.heading]) { say('Your snake cannot turn back on itself.'); return; }
      chosen = move; started = true;
      if (pace === 0 && P.myTurn() && P.atLatest()) { send(); return; }
      P.redraw(); schedule(); info();
    }
    // schedule starts the turn's clock once the game is asked and started.
    function schedule() {
      if (!started || paused || pace === 0 || !P.myTurn() || !P.atLatest() || P.done()) return;
      var turn = P.latest().turn;
      if (timer && timerTurn === turn) return;
      clearTimeout(timer);
      timerTurn = turn;
      timer = setTimeout(function () { timer = null; if (P.myTurn() && P.atLatest() && !paused) send(); }, pace);
    }

    P.svg.style.touchAction = 'none'; // a swipe steers rather than scrolls
    var down = null;
    P.svg.addEventListener('pointerdown', function (e) { down = { x: e.clientX, y: e.clientY }; });
    P.svg.addEventListener('pointerup', function (e) {
      if (!down || P.done()) return;
      var dx = e.clientX - down.x, dy = e.clientY - down.y;
      down = null;
      if (Math.max(Math.abs(dx), Math.abs(dy)) < 24) { // a tap: towards it from the head
        var me = mine(), pt = P.svg.createSVGPoint();
        if (!me || !P.svg.getScreenCTM()) return;
        pt.x = e.clientX; pt.y = e.clientY;
        var p = pt.matrixTransform(P.svg.getScreenCTM().inverse()), f = P.latest();
        dx = p.x - (me.body[0].x + 0.5); dy = p.y - (f.height - 1 - me.body[0].y + 0.5);
        if (Math.max(Math.abs(dx), Math.abs(dy)) < 0.5) return;
      }
      choose(Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? 'right' : 'left') : (dy > 0 ? 'down' : 'up'));
    });

    P.button('↑', 'Next move up (↑ or w)', function () { choose('up'); });
    P.button('←', 'Next move left (← or a)', function () { choose('left'); });
    P.button('↓', 'Next move down (↓ or s)', function () { choose('down'); });
    P.button('→', 'Next move right (→ or d)', function () { choose('right'); });
    var go = P.button('Go', 'Send the next move now (Enter or Space)', function () { started = true; send(); }, 'primary');
    go.id = 'snake-go';
    var pauseBtn = P.button('Pause', 'Stop the clock; the game waits for you (p)', function () { setPaused(!paused); });
    pauseBtn.id = 'snake-pause';
    var label = document.createElement('label'); label.className = 'choice';
    label.appendChild(document.createTextNode('Pace '));
    var sel = document.createElement('select'); sel.id = 'snake-pace';
    PACES.forEach(function (p) {
      var o = document.createElement('option'); o.value = p[0]; o.textContent = p[1]; if (p[2] === pace) o.selected = true; sel.appendChild(o);
    });
    sel.addEventListener('change', function () {
      PACES.forEach(function (p) { if (p[0] === sel.value) pace = p[2]; });
      clearTimeout(timer); timer = null; timerTurn = -1; schedule(); info();
    });
    label.appendChild(sel); P.controls.appendChild(label);
    var nextEl = P.text('hint'); nextEl.id = 'snake-next';
    var state = P.text('hint'); state.id = 'snake-state'; state.setAttribute('aria-live', 'polite');
    var note = '';
    function say(text) { note = text; info(); }
    function setPaused(on) {
      paused = on; pauseBtn.textContent = on ? 'Resume' : 'Pause'; pauseBtn.setAttribute('aria-pressed', on ? 'true' : 'false');
      if (on) { clearTimeout(timer); timer = null; timerTurn = -1; } else { started = true; schedule(); }
      info();
    }
    function info() {
      var me = mine();
      nextEl.textContent = !me ? '' : 'Next move: ' + (chosen ? chosen : 'straight on (' + straight() + ')') +
        (pace === 0 ? '' : !started ? '. The clock starts with your first move.' : paused ? '. Paused.' : '.');
      state.textContent = (note ? note + ' ' : '') + (me ? 'Your snake: ' + snakeWords(me) + '.' : P.done() ? '' : 'Your snake is out.');
      note = '';
    }
    P.onChange(function () {
      // At the pace "wait for me", a move chosen while the others were
      // still answering is the move of the turn now asked.
      if (pace === 0 && chosen && P.myTurn() && P.atLatest()) { send(); return; }
      schedule(); info();
    });
    return {
      decorate: function (ctx, f, isLatest) {
        ctx.mine = P.seat;
        if (isLatest && !P.done() && B.snakeOf(f, P.seat)) ctx.nextMove = { move: next(), chosen: !!chosen };
      },
      key: function (e) {
        if (P.done()) return false;
        var k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
        if (KEYS[k]) { choose(KEYS[k]); return true; }
        if (k === 'Enter' || k === ' ') { if (e.target && e.target.tagName === 'BUTTON') return false; started = true; send(); return true; }
        if (k === 'p') { setPaused(!paused); return true; }
        return false;
      },
      prompt: function () {
        if (!mine()) return 'Your snake is out: the others play on.';
        if (pace === 0) return 'Your move: an arrow key or a swipe sends it; Enter goes straight on.';
        return started ? 'Steer with the arrow keys or a swipe; Enter sends at once.' : 'Steer with the arrow keys or a swipe to start; Enter goes straight on.';
      },
    };
  };
  B.keys = [['↑ ↓ ← → or w s a d', 'set your next move (a swipe or a tap beside the head does too)'], ['Enter or Space', 'send it now'], ['p', 'pause the clock']];
  function cellWords(p) { return 'column ' + p.x + ' row ' + p.y; }
  // seatNamer names seats as the page does, or as the game does.
  function seatNamer(ctx) {
    return function (seat) { return ctx.seatName ? String(ctx.seatName(seat)) + ' (snake ' + seat + ')' : 'snake ' + seat; };
  }
  function goneOf(f, seat) {
    for (var i = 0; i < f.gone.length; i++) if (f.gone[i].seat === seat) return f.gone[i];
    return null;
  }
  function snakeWords(s) {
    return 'head at ' + cellWords(s.body[0]) + ', heading ' + heading(s.body) + ', length ' + s.length + ', health ' + s.health;
  }
  Arena.boards['snake'] = B;
})();
