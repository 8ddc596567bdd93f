// newbot.js: + New bot's "Get started" follows the game chosen in the
// upload form, so the kits and commands shown are the ones for the game
// the bot is uploaded to. Without this script the links to
// /bots/new?game=ID do the same by a page load.
(function () {
  'use strict';
  var select = document.getElementById('nb-game');
  if (!select) return;
  function show(id) {
    Array.prototype.forEach.call(document.querySelectorAll('[data-kits-for]'), function (el) {
      el.hidden = el.getAttribute('data-kits-for') !== id;
    });
    Array.prototype.forEach.call(document.querySelectorAll('[data-kit-game]'), function (a) {
      if (a.getAttribute('data-kit-game') === id) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    });
    if (history.replaceState) history.replaceState(null, '', '/bots/new?game=' + encodeURIComponent(id));
  }
  select.addEventListener('change', function () { show(select.value); });
})();
