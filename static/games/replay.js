// The replay page: step through a game's log with the buttons or the keyboard (← → one move,
// Page Up/Down one round, Home/End the start and the end). Every control is a plain link to
// `?ply=N`, so the page works without this script. With it, the page asks once, as it loads, for
// every point of the game (`data-points`: the markup of each, up to the game's ply and no
// further), and each step then swaps the point's markup in at once, asking the server nothing;
// the address follows (back and forward go through the points seen). Until those points have
// arrived, or if they cannot be had, a step fetches its page.
(function () {
  "use strict";

  const root = document.getElementById("replay-root");
  if (!root) return;
  const replay = () => document.getElementById("replay");
  let points = null; // the markup of each point, by ply, once loaded
  let loading = null; // the page fetch in flight, if any

  function showCurrentMove() {
    const current = root.querySelector(".move-log li.current");
    const log = root.querySelector(".move-log");
    if (!current || !log) return;
    const top = current.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - current.offsetHeight) {
      log.scrollTop = Math.max(0, top - log.clientHeight / 2);
    }
  }

  // A position of an analysed game: highlight the move the computer preferred from here
  // ("F3 blue 2", "C red floor", "wall 2 4"), written in the note above the board.
  function showSuggestion() {
    const note = root.querySelector(".judged-move[data-suggest]");
    if (!note) return;
    const words = note.dataset.suggest.split(" ");
    const board = root.querySelector(`.player-board[data-seat="${note.dataset.seat}"]`);
    const marks = [];
    if (words[0] === "wall") {
      const row = board && board.querySelectorAll(".wall-row")[Number(words[1]) - 1];
      if (row) marks.push(row.querySelectorAll(".tile")[Number(words[2]) - 1]);
    } else {
      const source = words[0] === "C"
        ? root.querySelector(".center")
        : root.querySelectorAll(".factories .factory")[Number(words[0].slice(1)) - 1];
      if (source) marks.push(...source.querySelectorAll(`.tile.${CSS.escape(words[1])}`));
      if (board) {
        marks.push(words[2] === "floor"
          ? board.querySelector(".floor-line")
          : board.querySelectorAll(".pattern-line")[Number(words[2]) - 1]);
      }
    }
    marks.filter(Boolean).forEach((element) => element.classList.add("suggested"));
  }
  showSuggestion();

  // The count of games waiting that the title starts with, "(2) ", is the header's: kept.
  function setTitle(title) {
    const count = document.title.match(/^\(\d+\) /);
    document.title = (count ? count[0] : "") + title;
  }

  // The point at `ply` in place of the one shown: its markup, the page's data, the move list's
  // current row. Keyboard focus stays on the control that had it (the same key's control of
  // the new point), or on the point's line when that control is gone (at the start or end).
  function showPoint(ply) {
    const shown = root.querySelector(".replay-point");
    const template = document.createElement("template");
    template.innerHTML = points[ply];
    const fresh = template.content.querySelector(".replay-point");
    if (!shown || !fresh) return false;
    const focused = shown.contains(document.activeElement) ? document.activeElement : null;
    const focusKey = focused && (focused.dataset.key || focused.id);
    shown.replaceWith(fresh);
    const data = replay().dataset;
    data.ply = fresh.dataset.ply;
    data.round = fresh.dataset.round;
    data.phase = fresh.dataset.phase;
    setTitle(fresh.dataset.title);
    root.querySelectorAll(".move-log li").forEach((row) => {
      const current = Number(row.value) === ply;
      row.classList.toggle("current", current);
      const link = row.querySelector("a");
      if (link && current) link.setAttribute("aria-current", "step");
      else if (link) link.removeAttribute("aria-current");
    });
    if (focused) {
      const again = focusKey && (fresh.querySelector(`[data-key="${focusKey}"]`)
        || document.getElementById(focusKey));
      if (again) {
        again.focus();
      } else {
        const text = fresh.querySelector("#replay-point-text");
        text.tabIndex = -1;
        text.focus();
      }
    }
    const announce = document.getElementById("replay-announce");
    const said = fresh.querySelector("#replay-point-text");
    if (announce && said) announce.textContent = said.textContent;
    showCurrentMove();
    showSuggestion();
    return true;
  }

  // The ply a replay address asks for, when it is one of the points loaded (else null: the
  // server's page says what is wrong with it).
  function plyOf(url) {
    const raw = new URL(url, window.location.href).searchParams.get("ply");
    const text = raw === null ? "0" : raw.trim();
    if (!/^\d{1,9}$/.test(text)) return null;
    const ply = Number(text);
    return points && ply < points.length ? ply : null;
  }

  // The page at `url`, fetched and swapped in. Only the latest step's answer is shown: a step
  // taken meanwhile (from the points, or another fetch) aborts this one, so a slow page cannot
  // land after, and on top of, the point the player has since moved to.
  async function fetchPage(url, signal) {
    let page;
    try {
      const response = await fetch(url, { signal, headers: { Accept: "text/html" } });
      if (!response.ok) { window.location.assign(url); return false; }
      page = new DOMParser().parseFromString(await response.text(), "text/html");
    } catch (error) {
      if (error.name !== "AbortError") window.location.assign(url);
      return false;
    }
    if (signal.aborted) return false;
    const fresh = page.getElementById("replay-root");
    if (!fresh) { window.location.assign(url); return false; }
    const scroll = root.querySelector(".move-log");
    const keep = scroll ? scroll.scrollTop : 0;
    root.innerHTML = fresh.innerHTML;
    document.title = page.title;
    const log = root.querySelector(".move-log");
    if (log) log.scrollTop = keep;
    showCurrentMove();
    showSuggestion();
    return true;
  }

  async function show(url, push) {
    if (loading) loading.abort();
    loading = null;
    const ply = plyOf(url);
    if (ply === null || !showPoint(ply)) {
      const step = new AbortController();
      loading = step;
      if (!(await fetchPage(url, step.signal))) return;
    }
    if (push) history.pushState({ replay: true }, "", url);
  }

  async function loadPoints() {
    const address = replay().dataset.points;
    if (!address) return;
    try {
      const response = await fetch(address, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const body = await response.json();
      if (!Array.isArray(body.points) || body.points.length !== Number(replay().dataset.lastPly) + 1) return;
      points = body.points;
      root.dataset.pointsLoaded = "true";
    } catch (error) {
      // No points: each step asks for its page, as without this script's points.
    }
  }
  loadPoints();

  root.addEventListener("click", (event) => {
    const link = event.target.closest("a[href^='?ply=']");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    show(link.href, true);
  });

  root.addEventListener("submit", (event) => {
    const form = event.target.closest(".replay-jump");
    if (!form) return;
    event.preventDefault();
    const url = new URL(window.location.href);
    url.search = new URLSearchParams(new FormData(form)).toString();
    show(url.href, true);
  });

  // Keys count from the point asked for last, not the one shown: pressing → three times quickly
  // goes three moves on, even before the first answer has arrived (without the points loaded).
  let wanted = null;

  function target(key) {
    const data = replay().dataset;
    const last = Number(data.lastPly);
    const from = wanted === null ? Number(data.ply) : wanted;
    const starts = (data.roundStarts || "").split(" ").filter(Boolean).map(Number);
    switch (key) {
      case "ArrowLeft": return Math.max(0, from - 1);
      case "ArrowRight": return Math.min(last, from + 1);
      case "Home": return 0;
      case "End": return last;
      case "PageUp": return starts.filter((s) => s < from).pop() ?? 0;
      case "PageDown": return starts.find((s) => s > from) ?? last;
      default: return null;
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const el = event.target;
    if (el && (el.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName))) return;
    const ply = target(event.key);
    if (ply === null) return;
    event.preventDefault();
    const current = wanted === null ? Number(replay().dataset.ply) : wanted;
    if (ply === current) return;
    wanted = ply;
    const url = new URL(window.location.href);
    url.searchParams.set("ply", String(ply));
    show(url.href, true).finally(() => {
      if (wanted === ply) wanted = null;
    });
  });

  window.addEventListener("popstate", () => show(window.location.href, false));
  showCurrentMove();
})();
