// Dark and light: the system's choice unless the person picked one here.
(function () {
  var saved = null;
  try { saved = localStorage.getItem('arena-theme'); } catch (e) {}
  if (saved === 'dark' || saved === 'light') document.documentElement.setAttribute('data-theme', saved);
  document.addEventListener('DOMContentLoaded', function () {
    var b = document.getElementById('theme-toggle');
    if (!b) return;
    b.addEventListener('click', function () {
      var cur = document.documentElement.getAttribute('data-theme');
      if (!cur) cur = window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
      var next = cur === 'dark' ? 'light' : 'dark';
      document.documentElement.setAttribute('data-theme', next);
      try { localStorage.setItem('arena-theme', next); } catch (e) {}
    });
  });
})();
