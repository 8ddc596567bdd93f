// The platform's pages, drawn from the JSON API (/api/v1/, docs/api.md).
// Every string from the API (handles, bot names, messages, logs) is put on
// the page with textContent only.
'use strict';
(function () {
  function h(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) {
      if (k === 'text') e.textContent = attrs[k]; else if (k === 'cls') e.className = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); }
  function api(method, path, body, csrf) {
    var opts = { method: method, credentials: 'same-origin', headers: { 'Accept': 'application/json' } };
    if (csrf) opts.headers['X-CSRF-Token'] = csrf;
    if (body instanceof FormData) opts.body = body;
    else if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
    return fetch(path, opts).then(function (r) {
      return r.text().then(function (t) {
        var d = null; try { d = t ? JSON.parse(t) : null; } catch (e) { d = null; }
        if (!r.ok && !(d && d.version)) throw new Error(d && d.error ? String(d.error) : 'the server answered ' + r.status);
        return d;
      });
    });
  }
  function me() { return window.ArenaMe || Promise.resolve(null); }
  function handleLink(p) { var s = String(p || ''); return h('a', { href: '/players/' + encodeURIComponent(s.replace(/^@/, '')), text: s }); }
  function botLink(id, name) { return h('a', { href: '/bots/' + encodeURIComponent(String(id)), text: String(name) }); }
  function when(t) { if (!t) return ''; var d = new Date(t); return isNaN(d) ? '' : d.toLocaleString(); }
  function matchItem(m) {
    var li = h('li', { 'data-id': String(Number(m.id)) });
    li.appendChild(h('a', { href: '/matches/' + encodeURIComponent(String(m.id)), text: 'Match ' + m.id }));
    if (m.state === 'running' || m.state === 'queued') li.appendChild(h('span', { cls: 'pill live', text: m.state }));
    else if (m.state !== 'finished') li.appendChild(h('span', { cls: 'pill', text: String(m.state) }));
    if (m.kind && m.kind !== 'rated') li.appendChild(h('span', { cls: 'pill', text: String(m.kind) }));
    (m.seats || []).slice().sort(function (a, b) { return (a.place || 99) - (b.place || 99); }).forEach(function (s, i) {
      var span = h('span');
      if (i) span.appendChild(document.createTextNode(' vs '));
      span.appendChild(h('span', { cls: 'seatname', text: String(s.player) + '/' + String(s.bot) }));
      if (m.state === 'finished') span.appendChild(document.createTextNode(' ' + s.score));
      li.appendChild(span);
    });
    li.appendChild(h('span', { cls: 'when', text: (m.turns ? m.turns + ' turns · ' : '') + when(m.finished || m.created) }));
    return li;
  }
  function fillMatches(list, ms, append, empty) {
    if (!append) clear(list);
    ms.forEach(function (m) { list.appendChild(matchItem(m)); });
    if (!list.firstChild) list.appendChild(h('li', { cls: 'empty', text: empty || 'None yet.' }));
  }
  // gameName is a game's name as the site's header spells it.
  function gameName(id) {
    var a = document.querySelector('nav.games a[href="/rules/' + String(id).replace(/[^a-z0-9-]/g, '') + '"]');
    return a ? a.textContent : String(id);
  }
  function count(n, one, many) { return Number(n) + ' ' + (Number(n) === 1 ? one : many); }
  // botItem is one of the visitor's own bots in a list: its rating only once
  // a version has passed the check; a bot without one says refused, or being
  // checked, which the bot's versions tell.
  function botState(versions) {
    var vs = versions || [], last = vs[vs.length - 1];
    if (vs.some(function (v) { return v.state === 'active'; })) return 'active';
    return last && last.state === 'checking' ? 'checking' : 'refused';
  }
  function stateLabel(state) { return state === 'checking' ? h('span', { cls: 'st st-ignored', text: 'being checked' }) : h('span', { cls: 'st st-malformed', text: 'refused' }); }
  function botItem(b) {
    var info = h('span', { text: '…' });
    var li = h('li', null, [botLink(b.id, b.name), h('span', { cls: 'pill', text: gameName(b.game) }), info, b.retired ? h('span', { cls: 'pill', text: 'retired' }) : null]);
    api('GET', '/api/v1/bots/' + encodeURIComponent(String(b.id))).then(function (full) {
      var state = botState(full.versions);
      clear(info);
      if (state === 'active') info.textContent = 'rating ' + b.rating + ', ' + count(b.matches, 'match', 'matches');
      else info.appendChild(stateLabel(state));
      if (state === 'refused') info.appendChild(document.createTextNode(' no version passed its check; upload a new one'));
    }, function (e) { info.textContent = e.message; });
    return li;
  }
  // fieldError shows msg next to a form field (or clears it, msg empty);
  // it returns whether there was one.
  function fieldError(input, msg) {
    var label = input.closest('label') || input.parentNode, e = label.querySelector('.field-err');
    if (!e) { e = h('span', { cls: 'field-err', role: 'alert' }); label.appendChild(e); }
    e.textContent = msg || ''; e.hidden = !msg;
    if (msg) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
    return !!msg;
  }
  // checkFields runs each [input, message-or-empty] and focuses the first bad one.
  function checkFields(list) {
    var first = null;
    list.forEach(function (c) { if (fieldError(c[0], c[1]) && !first) first = c[0]; });
    if (first) first.focus();
    return !first;
  }
  function size(n) { return n >= 1 << 20 ? (n / (1 << 20)).toFixed(1) + ' MiB' : Math.max(1, Math.round(n / 1024)) + ' KiB'; }
  function fail(el, err) { clear(el); el.appendChild(h('span', { cls: 'err-msg', text: String(err.message || err) })); }

  var root = document.querySelector('.page[data-page]');
  var pageName = root ? root.getAttribute('data-page') : (document.getElementById('viewer') ? 'match' : '');
  var game = root ? root.getAttribute('data-game') : '';

  // delta is a rating change as the pages show it: +12, −3, 0.
  function delta(n) {
    if (n === undefined || n === null) return h('span', { cls: 'hint', text: '–' });
    var v = Number(n);
    return h('span', { cls: 'delta' + (v > 0 ? ' up' : v < 0 ? ' down' : ''), text: v > 0 ? '+' + v : v < 0 ? '\u2212' + (-v) : '0' });
  }
  function ratingCell(r, sd) { return h('td', { cls: 'num' }, [String(r), h('span', { cls: 'pm', text: ' \u00b1' + Number(sd || 0) })]); }

  if (pageName === 'leaderboard') {
    var rows = document.getElementById('rows'), more = document.getElementById('more'), next = '';
    var qIn = document.getElementById('lb-q'), playersIn = document.getElementById('lb-players'), activeIn = document.getElementById('lb-active');
    // The filters live in the address too, so a filtered board can be linked.
    var params = new URLSearchParams(location.search);
    qIn.value = (params.get('q') || '').slice(0, 32);
    if (playersIn) playersIn.value = params.get('players') || '';
    activeIn.checked = params.get('active') === '1';
    var query = function () {
      var q = new URLSearchParams();
      if (qIn.value.trim()) q.set('q', qIn.value.trim().slice(0, 32));
      if (playersIn && playersIn.value) q.set('players', playersIn.value);
      if (activeIn.checked) q.set('active', '1');
      return q;
    };
    var seq = 0;
    var load = function (append) {
      var q = query(), mine = ++seq;
      rows.setAttribute('aria-busy', 'true');
      q.set('limit', '50');
      if (append && next) q.set('after', next);
      api('GET', '/api/v1/games/' + encodeURIComponent(game) + '/leaderboard?' + q.toString()).then(function (d) {
        if (mine !== seq) return; // a newer search answered first, or will
        rows.setAttribute('aria-busy', 'false');
        if (!append) clear(rows);
        (d.rows || []).forEach(function (r) {
          var played = r.wins + r.draws + r.losses;
          rows.appendChild(h('tr', null, [h('td', { text: String(r.rank) }), h('td', null, [botLink(r.bot_id, r.bot)]), h('td', null, [handleLink(r.player)]),
            ratingCell(r.rating, r.uncertainty), h('td', { cls: 'num', text: String(r.wins) }), h('td', { cls: 'num', text: String(r.draws) }), h('td', { cls: 'num', text: String(r.losses) }),
            h('td', { cls: 'num', text: String(r.matches), title: played !== r.matches ? played + ' counted in W, D and L' : '' }),
            h('td', { cls: 'num' }, [r.last_match ? h('a', { href: '/matches/' + encodeURIComponent(String(r.last_match)), 'aria-label': 'last match' }, [delta(r.last_change)]) : delta(null)])]));
        });
        if (!rows.firstChild) rows.appendChild(h('tr', null, [h('td', { colspan: 9, text: query().toString() ? 'No bot matches these filters.' : 'No bots yet.' })]));
        next = d.next || ''; more.hidden = !next;
      }, function (e) { if (mine !== seq) return; rows.setAttribute('aria-busy', 'false'); clear(rows); rows.appendChild(h('tr', null, [h('td', { colspan: 9, text: e.message })])); });
    };
    var timer = 0;
    var refilter = function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = query().toString();
        history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
        next = ''; load(false);
      }, 200);
    };
    qIn.addEventListener('input', refilter);
    if (playersIn) playersIn.addEventListener('change', refilter);
    activeIn.addEventListener('change', refilter);
    document.getElementById('lb-filters').addEventListener('submit', function (e) { e.preventDefault(); refilter(); });
    more.addEventListener('click', function () { load(true); });
    load(false);
  }

  if (pageName === 'arena') {
    var live = document.getElementById('live'), fin = document.getElementById('finished'), sel = document.getElementById('filter-bot');
    var moreBtn = document.getElementById('more'), before = '', bots = [];
    var q = function () { return '/api/v1/matches?game=' + encodeURIComponent(game) + (sel.value ? '&bot=' + encodeURIComponent(sel.value) : ''); };
    var paged = false, es = null;
    var loadFin = function () {
      api('GET', q() + '&state=finished&limit=25' + (before ? '&before=' + encodeURIComponent(before) : '')).then(function (d) {
        fillMatches(fin, d.matches || [], true); before = d.next || ''; moreBtn.hidden = !before; paged = true;
      }, function (e) { fail(fin, e); });
    };
    // The lists follow the server's stream: live matches appear and finish
    // as they do. Once "More" has added older matches, new finished ones
    // go on top instead of replacing the list.
    var follow = function () {
      if (es) es.close();
      es = new EventSource('/arena/' + encodeURIComponent(game) + '/events' + (sel.value ? '?bot=' + encodeURIComponent(sel.value) : ''));
      es.addEventListener('live', function (e) { fillMatches(live, JSON.parse(e.data).matches || [], false, 'No match is being played right now.'); });
      es.addEventListener('finished', function (e) {
        var d = JSON.parse(e.data);
        if (!paged) { fillMatches(fin, d.matches || []); before = d.next || ''; moreBtn.hidden = !before; return; }
        (d.matches || []).slice().reverse().forEach(function (m) {
          if (!fin.querySelector('li[data-id="' + String(Number(m.id)) + '"]')) fin.insertBefore(matchItem(m), fin.firstChild);
        });
      });
      es.addEventListener('failed', function (e) { fail(live, new Error(JSON.parse(e.data).error)); });
    };
    sel.addEventListener('change', function () { before = ''; paged = false; follow(); });
    moreBtn.addEventListener('click', function () { loadFin(); });
    follow();
    // Bots for the filter and the challenge: the leaderboard's.
    api('GET', '/api/v1/games/' + encodeURIComponent(game) + '/leaderboard?limit=200').then(function (d) {
      bots = d.rows || [];
      bots.forEach(function (r) { sel.appendChild(h('option', { value: String(r.bot_id), text: String(r.player) + '/' + String(r.bot) })); });
      me().then(function (m) {
        if (!m || !m.handle) return;
        document.getElementById('challenge').hidden = false; document.getElementById('challenge-login').hidden = true;
        var players = (root.getAttribute('data-players') || '2').split(','), ps = document.getElementById('ch-players');
        players.forEach(function (p) { ps.appendChild(h('option', { value: p, text: p + ' players' })); });
        document.getElementById('players-label').hidden = players.length < 2;
        var seats = document.getElementById('ch-seats');
        var drawSeats = function () {
          clear(seats);
          for (var i = 0; i < parseInt(ps.value, 10); i++) {
            var s = h('select', { 'data-seat': String(i), 'aria-label': 'Seat ' + i });
            bots.forEach(function (r, k) { var o = h('option', { value: String(r.bot_id), text: String(r.player) + '/' + String(r.bot) }); if (k === i % Math.max(1, bots.length)) o.selected = true; s.appendChild(o); });
            seats.appendChild(h('label', null, ['Seat ' + i + ' ', s]));
          }
        };
        ps.addEventListener('change', drawSeats); drawSeats();
        document.getElementById('challenge').addEventListener('submit', function (e) {
          e.preventDefault();
          var msg = document.getElementById('ch-msg'), ids = [];
          seats.querySelectorAll('select').forEach(function (s) { ids.push(parseInt(s.value, 10)); });
          var body = { game: game, bots: ids }, seed = document.getElementById('ch-seed').value.trim();
          if (seed) { if (!/^[0-9]{1,15}$/.test(seed)) { msg.className = 'err-msg'; msg.textContent = 'The seed is a whole number.'; return; } body.seed = parseInt(seed, 10); }
          msg.className = ''; msg.textContent = 'Asking…';
          api('POST', '/api/v1/challenges', body, m.csrf).then(function (d) { location.href = '/matches/' + encodeURIComponent(String(d.match)); },
            function (err) { msg.className = 'err-msg'; msg.textContent = err.message; });
        });
      });
    });
  }

  function versionState(v) {
    var s = String(v.state || '');
    return h('span', { cls: 'st ' + (s === 'active' ? 'st-ok' : s === 'refused' ? 'st-malformed' : 'st-ignored'), text: s });
  }

  // Commands on any page name this server, not a placeholder.
  Array.prototype.forEach.call(document.querySelectorAll('.server-url'), function (el) { el.textContent = location.origin; });

  if (pageName === 'newbot') {
    var form = document.getElementById('upload'), out = document.getElementById('nb-result');
    me().then(function (m) {
      if (!m || !m.handle) return;
      form.hidden = false; document.getElementById('nb-login').hidden = true;
      var mine = document.getElementById('mybots'), list = document.getElementById('mybots-list');
      var showMine = function (bots) {
        clear(list); mine.hidden = !bots.length;
        bots.forEach(function (b) { list.appendChild(botItem(b)); });
      };
      showMine(m.bots || []);
      var poll = function (botID, versionID, tries) {
        api('GET', '/api/v1/bots/' + botID).then(function (b) {
          var v = (b.versions || []).filter(function (x) { return x.id === versionID; })[0];
          if (v && v.state === 'checking' && tries < 120) { setTimeout(function () { poll(botID, versionID, tries + 1); }, 1000); return; }
          report(b, v);
        });
      };
      // The upload's answer: the steps of its check, drawn as they come
      // (#nb-steps, #nb-answers), then the verdict (#nb-verdict).
      var verdict = null, steps = null, answers = null, progress = null;
      var report = function (b, v) {
        clear(verdict);
        if (!v) return;
        var ok = v.state === 'active';
        verdict.appendChild(h('p', { cls: ok ? 'ok-msg' : v.state === 'checking' ? '' : 'err-msg',
          text: ok ? 'Version ' + v.number + ' of ' + b.name + ' passed its smoke match and plays on the ladder.' :
            v.state === 'checking' ? 'Version ' + v.number + ' is being checked: it plays a smoke match against a house bot…' :
              'Version ' + v.number + ' was refused.' }));
        if (v.message) verdict.appendChild(h('pre', { cls: 'code', text: String(v.message) }));
        var links = h('p');
        links.appendChild(botLink(b.id, 'The bot\'s page'));
        if (v.smoke_match) { links.appendChild(document.createTextNode(' · ')); links.appendChild(h('a', { href: '/matches/' + encodeURIComponent(String(v.smoke_match)), text: 'the smoke match\'s replay' })); }
        verdict.appendChild(links);
      };
      var startLive = function () {
        clear(out);
        steps = h('ol', { id: 'nb-steps' }, [h('li', { text: 'Sending the module…' })]);
        progress = h('p', { id: 'nb-progress', cls: 'hint' });
        answers = h('tbody');
        var table = h('table', { id: 'nb-answers', cls: 'fields', hidden: '' }, [
          h('caption', { text: 'The bot\'s first answers in its smoke match' }),
          h('thead', null, [h('tr', null, [h('th', { scope: 'col', text: 'Turn' }), h('th', { scope: 'col', text: 'Status' }), h('th', { scope: 'col', text: 'Fuel' }), h('th', { scope: 'col', text: 'Answer' })])]),
          answers]);
        verdict = h('div', { id: 'nb-verdict' });
        [steps, progress, verdict, table].forEach(function (e) { out.appendChild(e); });
      };
      var step = function (text) { steps.appendChild(h('li', { text: text })); };
      // onStep draws one event of the upload's stream (docs/api.md,
      // "Uploads"); every field is the server's or the bot's text, shown as
      // text.
      var onStep = function (name, d) {
        switch (name) {
          case 'compiling': case 'compiled': case 'running': case 'restarted': step(String(d.message || name)); break;
          case 'smoke':
            var li = h('li', null, ['Smoke match ', h('a', { href: '/matches/' + encodeURIComponent(String(d.match)), text: String(d.match) }),
              ' against ' + String(d.opponent || 'a house bot') + ': waiting for a worker.']);
            steps.appendChild(li); break;
          case 'answer':
            var ans = d.answer ? String(d.answer) + (d.answer_len ? '… (' + Number(d.answer_len) + ' bytes)' : '') : String(d.message || '');
            if (d.reason) ans += (ans ? ' — ' : '') + String(d.reason);
            document.getElementById('nb-answers').hidden = false;
            answers.appendChild(h('tr', null, [h('td', { cls: 'num', text: String(Number(d.turn)) }),
              h('td', null, [h('span', { cls: 'st st-' + String(d.status || '').replace(/[^a-z]/g, ''), text: String(d.status || '') })]),
              h('td', { cls: 'num', text: Number(d.fuel || 0).toLocaleString() }), h('td', null, [h('code', { text: ans })])]));
            progress.textContent = 'Turn ' + Number(d.turn) + ' played.'; break;
          case 'progress': progress.textContent = 'Turn ' + Number(d.turn) + ' played.'; break;
          case 'verdict':
            if (d.version && d.bot) {
              report(d.bot, d.version);
              if (d.version.state === 'checking') poll(d.bot.id, d.version.id, 0);
            } else {
              clear(verdict); verdict.appendChild(h('p', { cls: 'err-msg', text: String(d.error || ('the server answered ' + d.status)) }));
            }
            api('GET', '/api/v1/me').then(function (m2) { if (m2) showMine(m2.bots || []); });
            break;
        }
      };
      // upload sends the form and reads its answer as server-sent events
      // (a POST, which EventSource cannot make): a refusal before the check
      // starts (a limit, a bad body) is a JSON error instead.
      var upload = function (path, fd) {
        var ended = false;
        return fetch(path, { method: 'POST', credentials: 'same-origin', body: fd,
          headers: { 'Accept': 'text/event-stream', 'X-CSRF-Token': m.csrf || '' } }).then(function (r) {
          if ((r.headers.get('Content-Type') || '').indexOf('text/event-stream') !== 0 || !r.body) {
            return r.text().then(function (t) {
              var d = null; try { d = JSON.parse(t); } catch (e) { d = null; }
              throw new Error(d && d.error ? String(d.error) : 'the server answered ' + r.status);
            });
          }
          var reader = r.body.getReader(), dec = new TextDecoder(), buf = '';
          var pump = function () {
            return reader.read().then(function (chunk) {
              buf += dec.decode(chunk.value || new Uint8Array(0), { stream: !chunk.done });
              var i;
              while ((i = buf.indexOf('\n\n')) >= 0) {
                var block = buf.slice(0, i), name = 'message', data = '';
                buf = buf.slice(i + 2);
                block.split('\n').forEach(function (line) {
                  if (line.indexOf('event: ') === 0) name = line.slice(7);
                  else if (line.indexOf('data: ') === 0) data += line.slice(6);
                });
                if (!data) continue;
                var d = null; try { d = JSON.parse(data); } catch (e) { continue; }
                if (name === 'verdict') ended = true;
                onStep(name, d);
              }
              if (chunk.done) { if (!ended) throw new Error('the connection ended before the verdict; the bot\'s page has it when the check ends'); return; }
              return pump();
            });
          };
          return pump();
        });
      };
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var fileIn = document.getElementById('nb-file'), nameIn = document.getElementById('nb-name');
        var file = fileIn.files[0], name = nameIn.value.trim(), g = document.getElementById('nb-game').value, max = parseInt(fileIn.getAttribute('data-max'), 10);
        if (!checkFields([
          [nameIn, !name ? 'Give the bot a name.' : !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/.test(name) ? 'Not a bot name: use 1 to 32 letters, digits, ., _ or -, starting with a letter or digit.' : ''],
          [fileIn, !file ? 'Choose the bot\'s .wasm file.' : file.size > max ? 'The file is ' + size(file.size) + '; a module may be at most ' + size(max) + '. Build it smaller (a release build, stripped).' : ''],
        ])) return;
        startLive();
        var submit = document.getElementById('nb-submit');
        submit.disabled = true;
        var fd = new FormData(); fd.append('csrf', m.csrf || ''); fd.append('file', file);
        upload('/api/v1/games/' + encodeURIComponent(g) + '/bots/' + encodeURIComponent(name), fd).then(function () { submit.disabled = false; },
          function (err) { submit.disabled = false; clear(verdict); verdict.appendChild(h('p', { cls: 'err-msg', text: String(err.message || err) })); });
      });
    });
  }

  if (pageName === 'player') {
    var handle = root.getAttribute('data-handle');
    api('GET', '/api/v1/players/' + encodeURIComponent(handle)).then(function (d) {
      document.getElementById('p-title').textContent = String(d.player);
      document.getElementById('p-sub').textContent = 'Joined ' + when(d.joined);
      var tb = document.getElementById('p-bots');
      (d.bots || []).forEach(function (b) {
        tb.appendChild(h('tr', null, [h('td', null, [botLink(b.id, b.name)]), h('td', null, [h('a', { href: '/leaderboard/' + encodeURIComponent(String(b.game)), text: String(b.game) })]),
          ratingCell(b.rating, b.uncertainty), h('td', { cls: 'num', text: String(b.matches) }), h('td', { text: b.retired ? 'retired' : 'active' })]));
      });
      if (!tb.firstChild) tb.appendChild(h('tr', null, [h('td', { colspan: 5, text: 'No bots yet.' })]));
    }, function (e) { document.getElementById('p-title').textContent = e.message; });
  }

  if (pageName === 'bot') {
    var id = root.getAttribute('data-id');
    api('GET', '/api/v1/bots/' + encodeURIComponent(id)).then(function (b) {
      document.getElementById('b-title').textContent = String(b.name);
      var sub = document.getElementById('b-sub'); clear(sub);
      sub.appendChild(document.createTextNode('by ')); sub.appendChild(handleLink(b.player));
      sub.appendChild(document.createTextNode(' · '));
      sub.appendChild(h('a', { href: '/leaderboard/' + encodeURIComponent(String(b.game)), text: gameName(b.game) }));
      var state = botState(b.versions);
      if (state === 'active') sub.appendChild(document.createTextNode(' · rating ' + b.rating + ' \u00b1' + Number(b.uncertainty || 0) + ' · ' + count(b.matches, 'match', 'matches')));
      else { sub.appendChild(document.createTextNode(' · ')); sub.appendChild(stateLabel(state)); }
      if (b.retired) sub.appendChild(document.createTextNode(' · retired'));
      var rec = document.getElementById('b-record');
      (b.records || []).forEach(function (r) {
        rec.appendChild(h('tr', null, [h('th', { scope: 'row', text: r.players + ' players' }), h('td', { cls: 'num', text: String(r.wins) }), h('td', { cls: 'num', text: String(r.draws) }), h('td', { cls: 'num', text: String(r.losses) })]));
      });
      if (!rec.firstChild) rec.appendChild(h('tr', null, [h('td', { colspan: 4, text: 'No rated matches yet.' })]));
      var tb = document.getElementById('b-versions');
      (b.versions || []).slice().reverse().forEach(function (v) {
        var msg = v.message ? h('div', { cls: 'hint', text: String(v.message) }) : null;
        if (v.module_deleted) msg = h('div', { cls: 'hint' }, [msg, h('div', { text: 'module deleted a day after it was replaced' })]);
        tb.appendChild(h('tr', null, [h('td', { text: String(v.number) }), h('td', null, [versionState(v), msg]),
          h('td', { cls: 'nowrap', text: size(v.size) }), h('td', { cls: 'nowrap' }, [h('code', { text: String(v.sha256 || '').slice(0, 12), title: String(v.sha256 || '') })]),
          h('td', { text: when(v.created) }), h('td', null, [v.smoke_match ? h('a', { href: '/matches/' + v.smoke_match, text: 'match ' + v.smoke_match }) : null])]));
      });
      me().then(function (m) {
        var mine = m && (m.bots || []).some(function (x) { return x.id === b.id; });
        var btn = document.getElementById('b-retire');
        btn.hidden = !mine || b.retired;
        btn.addEventListener('click', function () {
          if (!confirm('Retire ' + b.name + '? It stops playing rated matches.')) return;
          api('POST', '/api/v1/bots/' + b.id + '/retire', undefined, m.csrf).then(function () { location.reload(); }, function (e) { alert(e.message); });
        });
      });
    }, function (e) { document.getElementById('b-title').textContent = e.message; });
    var ratings = api('GET', '/api/v1/bots/' + encodeURIComponent(id) + '/ratings?limit=200');
    ratings.then(function (d) { ratingChart(document.getElementById('b-chart'), (d.points || []).slice().reverse()); },
      function (e) { document.getElementById('b-chart-note').textContent = e.message; });
    api('GET', '/api/v1/matches?bot=' + encodeURIComponent(id) + '&limit=50').then(function (d) {
      var ms = d.matches || [], list = document.getElementById('b-matches');
      fillMatches(list, ms.slice(0, 20));
      // Each rated match with the change it made to the bot's rating.
      ratings.then(function (rd) {
        var byMatch = {};
        (rd.points || []).forEach(function (p) { byMatch[String(p.match)] = p; });
        Array.prototype.forEach.call(list.querySelectorAll('li[data-id]'), function (li) {
          var p = byMatch[li.getAttribute('data-id')];
          if (p) li.appendChild(h('span', { cls: 'rating-change', title: 'rating after: ' + p.rating }, ['rating ', delta(p.change)]));
        });
      }, function () {});
      var counts = {}, total = 0;
      ms.forEach(function (m) { (m.seats || []).forEach(function (s) { if (String(s.bot_id) === String(id) && s.statuses) for (var k in s.statuses) { counts[k] = (counts[k] || 0) + s.statuses[k]; total += s.statuses[k]; } }); });
      var t = document.getElementById('b-status');
      ['ok', 'illegal', 'malformed', 'fuel', 'timeout', 'crash', 'retired', 'ignored'].forEach(function (k) {
        t.appendChild(h('tr', null, [h('th', { scope: 'row' }, [h('span', { cls: 'st st-' + k, text: k })]), h('td', { text: String(counts[k] || 0) + (total ? ' (' + Math.round(100 * (counts[k] || 0) / total) + '%)' : '') })]));
      });
      t.appendChild(h('caption', { text: ms.length === 1 ? 'Every answer in its one match.' : ms.length ? 'Every answer in its ' + ms.length + ' most recent matches.' : 'No matches yet.' }));
    }, function (e) { fail(document.getElementById('b-matches'), e); });
  }

  function ratingChart(svg, pts) {
    var NS = 'http://www.w3.org/2000/svg', note = document.getElementById('b-chart-note');
    function el(n, a) { var e = document.createElementNS(NS, n); for (var k in a) e.setAttribute(k, a[k]); svg.appendChild(e); return e; }
    if (pts.length < 1) { note.textContent = 'No rated matches yet.'; return; }
    var lo = Infinity, hi = -Infinity;
    pts.forEach(function (p) { lo = Math.min(lo, p.rating); hi = Math.max(hi, p.rating); });
    if (hi - lo < 20) { lo -= 10; hi += 10; }
    var X = function (i) { return 36 + (pts.length === 1 ? 182 : i * 360 / (pts.length - 1)); };
    var Y = function (r) { return 10 + (hi - r) * 95 / (hi - lo); };
    [lo, hi].forEach(function (v) { el('line', { class: 'grid', x1: 36, x2: 396, y1: Y(v), y2: Y(v) }); var t = el('text', { class: 'axis', x: 2, y: Y(v) + 3 }); t.textContent = String(Math.round(v)); });
    el('polyline', { class: 'line', points: pts.map(function (p, i) { return X(i).toFixed(1) + ',' + Y(p.rating).toFixed(1); }).join(' ') });
    note.textContent = count(pts.length, 'rated match', 'rated matches') + '; now ' + pts[pts.length - 1].rating + '.';
  }

  if (pageName === 'account') {
    var outEl = document.getElementById('acc-out'), inEl = document.getElementById('acc-in');
    var show = function (m) {
      outEl.hidden = !!(m && m.handle); inEl.hidden = !(m && m.handle);
      if (!m || !m.handle) return;
      document.getElementById('acc-handle').textContent = String(m.handle);
      document.getElementById('acc-page').href = '/players/' + encodeURIComponent(String(m.handle).replace(/^@/, ''));
      // The operator's page is linked for operators only: for anyone else
      // it is a 403, which no page links.
      var logoutBtn = document.getElementById('logout');
      if (m.admin && !document.getElementById('acc-admin')) {
        logoutBtn.parentNode.insertBefore(h('a', { cls: 'btn', id: 'acc-admin', href: '/admin', text: 'Workers (operator)' }), logoutBtn);
        logoutBtn.parentNode.insertBefore(document.createTextNode(' '), logoutBtn);
      }
      var list = document.getElementById('acc-bots'); clear(list);
      (m.bots || []).forEach(function (b) { list.appendChild(botItem(b)); });
      if (!list.firstChild) list.appendChild(h('li', null, ['No bots yet: ', h('a', { href: '/bots/new', text: 'upload one' }), '.']));
      document.getElementById('logout').onclick = function () { api('DELETE', '/api/v1/sessions', undefined, m.csrf).then(function () { location.href = '/account'; }, function (e) { alert(e.message); }); };
      document.getElementById('new-token').onclick = function () {
        api('POST', '/api/v1/tokens', undefined, m.csrf).then(function (d) { var t = document.getElementById('token'); t.hidden = false; t.textContent = String(d.token); }, function (e) { alert(e.message); });
      };
    };
    var creds = function (form, path) {
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var msg = form.querySelector('.msg'), hIn = form.querySelector('[name=handle]'), pIn = form.querySelector('[name=password]'), handle = hIn.value.trim();
        var signup = path === '/api/v1/accounts';
        if (!checkFields([
          [hIn, !handle ? 'Enter your handle.' : signup && !/^[a-z0-9][a-z0-9_-]{1,23}$/.test(handle) ? 'Not a handle: use 2 to 24 small letters (a-z), digits, - or _, starting with a letter or digit.' : ''],
          [pIn, !pIn.value ? 'Enter a password.' : signup && pIn.value.length < 8 ? 'The password needs at least 8 characters.' : ''],
        ])) { msg.textContent = ''; return; }
        msg.className = 'msg'; msg.textContent = '…';
        api('POST', path, { handle: handle, password: pIn.value }).then(function (d) {
          if (d && d.token && path === '/api/v1/accounts') sessionStorage.setItem('arena-new-token', d.token);
          location.href = '/account';
        }, function (err) { msg.className = 'msg err-msg'; msg.textContent = err.message; });
      });
    };
    creds(document.getElementById('signup'), '/api/v1/accounts');
    creds(document.getElementById('login'), '/api/v1/sessions');
    me().then(function (m) {
      show(m);
      var t = sessionStorage.getItem('arena-new-token');
      if (t && m && m.handle) { sessionStorage.removeItem('arena-new-token'); var pre = document.getElementById('token'); pre.hidden = false; pre.textContent = t; }
    });
  }

  // A platform match in the viewer: its bots' logs, for their owner only.
  if (pageName === 'match') {
    var v = document.getElementById('viewer'), matchID = v.getAttribute('data-match');
    var seats = 0, tries = 0;
    var wait = setInterval(function () {
      var V = window.Arena && window.Arena.viewer;
      if ((!V || !V.done) && tries++ < 600) return;
      clearInterval(wait);
      seats = V ? V.players : 0;
      me().then(function (m) {
        if (!m || !m.handle) return;
        var box = document.getElementById('logs'), list = document.getElementById('log-list');
        for (var s = 0; s < seats; s++) (function (s) {
          // Only the owner may read a seat's log: ask for the visitor's seats.
          if (String(V.bots[s] || '').indexOf(String(m.handle) + '/') !== 0) return;
          api('GET', '/api/v1/matches/' + encodeURIComponent(matchID) + '/seats/' + s + '/log').then(function (d) {
            box.hidden = false;
            list.appendChild(h('h3', { text: 'Seat ' + s + ': ' + (V.bots[s] || '') }));
            list.appendChild(h('pre', { cls: 'code', text: d.stderr ? String(d.stderr) : '(nothing written to stderr)' }));
          }, function () {});
        })(s);
      });
    }, 500);
  }
})();
