// Who is logged in, for the header link; the API's session cookie is HttpOnly,
// so the page asks /api/v1/me.
'use strict';
window.ArenaMe = fetch('/api/v1/me', { credentials: 'same-origin' }).then(function (r) { return r.ok ? r.json() : null; }, function () { return null; });
document.addEventListener('DOMContentLoaded', function () {
  window.ArenaMe.then(function (me) {
    var a = document.getElementById('me-link');
    if (a && me && me.handle) { a.textContent = String(me.handle); a.href = '/account'; }
  });
});
