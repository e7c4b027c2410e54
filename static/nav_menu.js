// The site header's menu (base.html): open on a wide screen, closed behind its button on a narrow
// one, and Escape closes it there. It starts open in the page, so that it works without scripts.
(function () {
  "use strict";
  const menu = document.getElementById("nav-menu");
  if (!menu) return;
  const narrow = window.matchMedia("(max-width: 40rem)");
  function fit() { menu.open = !narrow.matches; }
  fit();
  narrow.addEventListener("change", fit);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && menu.open && narrow.matches) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
})();
