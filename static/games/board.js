// The board page: pick a source and colour, then a destination; the move goes to the API and the
// server-rendered board partial is swapped in. Legal moves come from the page (json_script), so
// a destination the rules refuse for the current pick cannot be chosen.
(function () {
  "use strict";

  const root = document.getElementById("game-root");
  if (!root) return;
  // Live updates (the block at the end): the least time between two looks at the server.
  const POLL_MS = 1000;
  let pick = null; // {source: "F3" | "C", color: "blue"}
  let busy = false;

  function game() { return document.getElementById("game"); }

  // The newest moves are at the end of the log: keep them in view, from the "since you last
  // played" mark on when there is one.
  function scrollLog() {
    const log = root.querySelector(".move-log");
    if (!log) return;
    log.scrollTop = log.scrollHeight;
    const since = log.querySelector(".since-marker");
    if (since) {
      const offset = since.getBoundingClientRect().top - log.getBoundingClientRect().top;
      if (offset < 0) log.scrollTop += offset;  // the mark at the top, the newest below it
    }
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

  // The page's strings come from Django's JavaScript catalog (/jsi18n/, loaded before this
  // script): gettext() and friends, in the page's language.
  const COLOR_NAMES = {
    blue: pgettext("tile colour", "blue"),
    yellow: pgettext("tile colour", "yellow"),
    red: pgettext("tile colour", "red"),
    black: pgettext("tile colour", "black"),
    white: pgettext("tile colour", "white"),
  };

  function sourceName(source) {
    return source === "C"
      ? gettext("the centre")
      : interpolate(gettext("factory %(number)s"), { number: source.slice(1) }, true);
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
    // No mention of Esc: most phones have no such key (choosing the same tiles again cancels).
    setHint(interpolate(
      ngettext(
        "Picked %(count)s %(color)s tile from %(source)s: now choose a highlighted pattern line or the floor line.",
        "Picked %(count)s %(color)s tiles from %(source)s: now choose a highlighted pattern line or the floor line.",
        count
      ),
      { count: count, color: COLOR_NAMES[color] || color, source: sourceName(source) },
      true
    ));
    const first = g.querySelector("button.dest:not(:disabled)");
    if (first) first.focus({ preventScroll: true });
    showDestinations(g);
  }

  // On a narrow screen the factories and the player's board are a screen apart: once tiles are
  // picked, bring the player's board (its pattern lines and floor line) into view.
  const NARROW = window.matchMedia("(max-width: 60rem)");
  function showDestinations(g) {
    if (!NARROW.matches) return;
    const board = g.querySelector(".player-board.interactive");
    if (!board) return;
    const box = board.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    board.scrollIntoView({ block: "nearest", behavior: reduce ? "auto" : "smooth" });
  }

  async function refresh(message) {
    const g = game();
    const response = await fetch(g.dataset.boardUrl, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin",
    });
    if (!response.ok) {
      throw new Error(interpolate(
        gettext("Could not reload the board (%(status)s)."), { status: response.status }, true
      ));
    }
    root.innerHTML = await response.text();
    // The move ended the game: the page itself shows the result with the rematch in it.
    if (game() && game().dataset.status === "finished") { window.location.reload(); return; }
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
      let detail = "", code = "";
      try { ({ detail = "", code = "" } = await response.json()); } catch (e) { detail = ""; }
      if (response.status === 409) {
        // A move of the player's own from another tab or window is reported as theirs.
        await refresh(code === "already_moved" ? detail : gettext("Someone moved first: the board has been updated, so choose your move again."));
      } else {
        clearPick();
        const reason = detail || interpolate(gettext("error %(status)s"), { status: response.status }, true);
        showError(interpolate(gettext("Move %(move)s was refused: %(reason)s"), { move: move, reason: reason }, true));
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

  // Live updates. The page asks the server to answer as soon as the game changes: a long-poll
  // on the game's version as this page sees it (an ETag), answered 304 when nothing changed
  // within the wait, or 200 as soon as something did; the page then loads the new board
  // (games/live/). A server that cannot keep a request waiting answers at once, and this then
  // asks once a POLL_MS: polling with ETag/304. When they fail twice in a row, it polls the board
  // itself (POLL_MS, backing off to 10 s) and tries them again a minute later. Nothing is asked
  // while the page is hidden.
  const LIVE_WAIT_S = 50;
  let liveTag = null; // the ETag of the version last seen, and the ply the page showed then
  let liveTagPly = null;
  let liveRequest = null; // the request in flight, aborted when the page is hidden
  let liveDownUntil = 0;

  function pause(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

  function liveUrl(g) {
    return g.dataset.liveUrl || g.dataset.boardUrl.replace(/board\/$/, "live/");
  }

  // Shows a board the server sent, unless the player is in the middle of a move or the page
  // already shows a later one (their own move, swapped in meanwhile). True when shown.
  function showBoard(html) {
    const now = game();
    if (busy || pick || !now) return false;
    const next = document.createElement("template");
    next.innerHTML = html;
    const incoming = next.content.getElementById("game");
    if (incoming && Number(incoming.dataset.ply) < Number(now.dataset.ply)) return false;
    // The game has just ended: the page itself shows the result (the game-over banner with the
    // rematch, the analysis), outside the board swapped here.
    if (incoming && incoming.dataset.status === "finished" && now.dataset.status === "active") {
      window.location.reload();
      return true;
    }
    root.innerHTML = html;
    scrollLog();
    return true;
  }

  async function liveCheck(g) {
    const headers = { "X-Requested-With": "fetch" };
    if (liveTag && liveTagPly === g.dataset.ply) headers["If-None-Match"] = liveTag;
    liveRequest = new AbortController();
    const response = await fetch(liveUrl(g) + "?wait=" + LIVE_WAIT_S + "&since=" + g.dataset.ply, {
      headers: headers, credentials: "same-origin", cache: "no-store", signal: liveRequest.signal,
    });
    if (response.redirected) throw new Error("signed out");
    if (response.status === 304 || response.status === 204) {
      liveTag = response.headers.get("ETag") || liveTag;
      liveTagPly = g.dataset.ply;
      return false;
    }
    if (response.status !== 200) throw new Error("live updates answered " + response.status);
    const tag = response.headers.get("ETag");
    const board = await fetch(g.dataset.boardUrl, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin", cache: "no-store",
    });
    if (board.redirected || board.status !== 200) {
      throw new Error("the board answered " + board.status);
    }
    if (!showBoard(await board.text())) return false;
    liveTag = tag;
    liveTagPly = game() ? game().dataset.ply : null;
    return true;
  }

  async function pollBoard(g) {
    const response = await fetch(g.dataset.boardUrl + "?since=" + g.dataset.ply, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin", cache: "no-store",
    });
    if (response.redirected) throw new Error("signed out");
    if (response.status === 204) return false;
    if (response.status !== 200) throw new Error("the board answered " + response.status);
    return showBoard(await response.text());
  }

  async function watchGame() {
    let failures = 0;
    for (;;) {
      const g = game();
      if (!g || !["active", "open"].includes(g.dataset.status)) return;
      if (document.hidden || busy || pick) { await pause(250); continue; }
      const started = Date.now();
      let changed = false;
      try {
        changed = Date.now() < liveDownUntil ? await pollBoard(g) : await liveCheck(g);
        failures = 0;
      } catch (err) {
        liveRequest = null;
        if (err.name === "AbortError") continue; // the page was hidden
        failures += 1;
        if (failures >= 2 && Date.now() >= liveDownUntil) liveDownUntil = Date.now() + 60000;
      }
      liveRequest = null;
      const gap = failures ? Math.min(POLL_MS * failures, 10000)
        : changed ? 0 : POLL_MS - (Date.now() - started);
      if (gap > 0) await pause(gap);
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (document.hidden && liveRequest) liveRequest.abort();
  });
  watchGame();
})();
