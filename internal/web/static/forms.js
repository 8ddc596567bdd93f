// The Play form: offer only the seats the chosen number of players has.
'use strict';
(function () {
  var players = document.getElementById('players'), seat = document.getElementById('seat');
  if (!players || !seat) return;
  function update() {
    var n = parseInt(players.value, 10);
    Array.prototype.forEach.call(seat.options, function (o) { o.disabled = o.hidden = parseInt(o.value, 10) >= n; });
    if (parseInt(seat.value, 10) >= n) seat.value = '0';
  }
  players.addEventListener('change', update);
  update();
})();
