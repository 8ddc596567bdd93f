// Who is logged in, for the header link; the API's session cookie is HttpOnly,
// so the page asks the site's /me.json (the API's /api/v1/me, with null for
// a visitor who is not logged in, where the API answers 401).
'use strict';
window.ArenaMe = fetch('/me.json', { credentials: 'same-origin' }).then(function (r) { return r.ok ? r.json() : null; }, function () { return null; });
document.addEventListener('DOMContentLoaded', function () {
  window.ArenaMe.then(function (me) {
    var a = document.getElementById('me-link');
    if (a && me && me.handle) { a.textContent = String(me.handle); a.href = '/account'; }
  });
});
