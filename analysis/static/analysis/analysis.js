// While the computer analyzes a game (analysis/_panel.html, "pending"), ask its API every few
// seconds, and reload the page once the analysis is done or failed.
(function () {
  "use strict";
  const panel = document.getElementById("analysis");
  if (!panel || panel.dataset.status !== "pending") return;
  const poll = async () => {
    try {
      const response = await fetch(panel.dataset.api, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (response.ok && (await response.json()).status !== "pending") { location.reload(); return; }
    } catch (e) { /* try again */ }
    setTimeout(poll, 3000);
  };
  setTimeout(poll, 3000);
})();
