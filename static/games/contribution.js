// A player's contribution to a game's deals (README, "Checking a game's deals"): every form that
// takes a seat (creating, joining, accepting an invitation) has a hidden
// <input name="contribution">, filled here with 32 random bytes from the browser's own generator,
// in hex, as the form is sent. The server mixes it with the seed it committed to, so that neither
// it nor anyone else alone decides the deals. Without JavaScript the field stays empty and the
// server makes one up.
(function () {
  "use strict";
  function randomHex() {
    const bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function fill(form) {
    const field = form.querySelector('input[type="hidden"][name="contribution"]');
    if (field && !field.value && window.crypto && crypto.getRandomValues) field.value = randomHex();
  }
  // On submit, so that forms the board swaps in later are filled too.
  document.addEventListener("submit", (event) => fill(event.target), true);
})();
