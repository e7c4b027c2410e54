// The board page: pick a source and colour, then a destination; the move goes to the API and the
// server-rendered board partial is swapped in. Legal moves come from the page (json_script), so
// a destination the rules refuse for the current pick cannot be chosen.
(function () {
  "use strict";

  const root = document.getElementById("game-root");
  if (!root) return;
  const POLL_MS = 20000;
  let pick = null; // {source: "F3" | "C", color: "blue"}
  let busy = false;

  function game() { return document.getElementById("game"); }

  // The newest moves are at the end of the log: keep them in view.
  function scrollLog() {
    const log = root.querySelector(".move-log");
    if (log) log.scrollTop = log.scrollHeight;
  }
  scrollLog();

  function csrfToken() {
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function legalMoves() {
    const node = document.getElementById("legal-moves");
    return node ? JSON.parse(node.textContent) : [];
  }

  // "F3 blue 2" -> {source: "F3", color: "blue", dest: "2"}; "wall 2 4" -> {line, column}.
  function parse(move) {
    const parts = move.split(" ");
    if (parts[0] === "wall") return { line: parts[1], column: parts[2] };
    return { source: parts[0], color: parts[1], dest: parts[2] };
  }

  function sourceName(source) {
    return source === "C" ? "the center" : "factory " + source.slice(1);
  }

  function showError(text) {
    const box = game() && game().querySelector(".move-error");
    if (box) box.textContent = text || "";
  }

  function setHint(text) {
    const hint = game() && game().querySelector(".pick-hint");
    if (hint) hint.textContent = text || hint.dataset.default;
  }

  function clearPick() {
    pick = null;
    const g = game();
    if (!g) return;
    g.classList.remove("picking");
    g.querySelectorAll(".tile.picked").forEach((t) => t.classList.remove("picked"));
    g.querySelectorAll("button.dest").forEach((d) => { d.disabled = true; });
    setHint(null);
  }

  function choose(source, color) {
    const g = game();
    if (pick && pick.source === source && pick.color === color) { clearPick(); return; }
    clearPick();
    const dests = new Set(
      legalMoves().map(parse).filter((m) => m.source === source && m.color === color)
        .map((m) => m.dest)
    );
    if (!dests.size) return;
    pick = { source: source, color: color };
    g.classList.add("picking");
    let count = 0;
    g.querySelectorAll(".tile.take").forEach((t) => {
      if (t.dataset.source === source && t.dataset.color === color) {
        t.classList.add("picked");
        count += 1;
      }
    });
    g.querySelectorAll("button.dest").forEach((d) => { d.disabled = !dests.has(d.dataset.dest); });
    setHint("Picked " + count + " " + color + " from " + sourceName(source) +
            ": now click a highlighted pattern line or the floor line (Esc to cancel).");
    const first = g.querySelector("button.dest:not(:disabled)");
    if (first) first.focus({ preventScroll: true });
  }

  async function refresh(message) {
    const g = game();
    const response = await fetch(g.dataset.boardUrl, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin",
    });
    if (!response.ok) throw new Error("Could not reload the board (" + response.status + ").");
    root.innerHTML = await response.text();
    scrollLog();
    pick = null;
    if (message) showError(message);
  }

  async function submit(move) {
    if (busy) return;
    busy = true;
    const g = game();
    g.setAttribute("aria-busy", "true");
    showError("");
    try {
      const response = await fetch(g.dataset.apiUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "Accept": "application/json",
          "X-CSRFToken": csrfToken(),
        },
        body: JSON.stringify({ move: move, expected_ply: Number(g.dataset.ply) }),
      });
      if (response.ok) {
        await refresh();
        return;
      }
      let detail = "";
      try { detail = (await response.json()).detail || ""; } catch (e) { detail = ""; }
      if (response.status === 409) {
        await refresh("Someone moved first: the board has been updated, so choose your move again.");
      } else {
        clearPick();
        showError("Move " + move + " was refused: " + (detail || ("error " + response.status)));
      }
    } catch (err) {
      showError(String(err.message || err));
    } finally {
      busy = false;
      const now = game();
      if (now) now.removeAttribute("aria-busy");
    }
  }

  root.addEventListener("click", (event) => {
    const target = event.target.closest("button");
    if (!target || target.disabled || !root.contains(target)) return;
    if (target.classList.contains("take")) {
      choose(target.dataset.source, target.dataset.color);
    } else if (target.classList.contains("dest") && pick) {
      submit(pick.source + " " + pick.color + " " + target.dataset.dest);
    } else if (target.classList.contains("place")) {
      submit("wall " + target.dataset.line + " " + target.dataset.column);
    }
  });

  // The notation form goes through the API as well, so there is one path with JavaScript on.
  root.addEventListener("submit", (event) => {
    const form = event.target.closest(".text-move-form");
    if (!form) return;
    event.preventDefault();
    submit(form.elements.move.value);
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && pick) clearPick();
  });

  // Correspondence pace: look for other players' moves now and then while the page is visible.
  setInterval(async () => {
    const g = game();
    if (!g || busy || pick || document.hidden || !["active", "open"].includes(g.dataset.status)) return;
    try {
      const response = await fetch(g.dataset.boardUrl + "?since=" + g.dataset.ply, {
        headers: { "X-Requested-With": "fetch" }, credentials: "same-origin",
      });
      if (response.status === 200) {
        root.innerHTML = await response.text();
        scrollLog();
      }
    } catch (e) { /* offline for a moment: try again next time */ }
  }, POLL_MS);
})();
