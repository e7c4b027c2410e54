// The replay page: step through a game's log with the buttons or the keyboard (← → one move,
// Page Up/Down one round, Home/End the start and the end). Every control is a plain link to
// `?ply=N`, so the page works without this script; with it, the next point's markup is fetched
// and swapped in, and the address follows (back and forward go through the points seen).
(function () {
  "use strict";

  const root = document.getElementById("replay-root");
  if (!root) return;
  let loading = null;

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

  async function show(url, push) {
    if (loading) loading.abort();
    loading = new AbortController();
    let response;
    try {
      response = await fetch(url, { signal: loading.signal, headers: { Accept: "text/html" } });
    } catch (error) {
      if (error.name !== "AbortError") window.location.assign(url);
      return;
    }
    if (!response.ok) { window.location.assign(url); return; }
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("replay-root");
    if (!fresh) { window.location.assign(url); return; }
    const scroll = root.querySelector(".move-log");
    const keep = scroll ? scroll.scrollTop : 0;
    root.innerHTML = fresh.innerHTML;
    document.title = page.title;
    const log = root.querySelector(".move-log");
    if (log) log.scrollTop = keep;
    showCurrentMove();
    showSuggestion();
    if (push) history.pushState({ replay: true }, "", url);
  }

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
  // goes three moves on, even before the first answer has arrived.
  let wanted = null;

  function target(key) {
    const replay = document.getElementById("replay");
    const last = Number(replay.dataset.lastPly);
    const from = wanted === null ? Number(replay.dataset.ply) : wanted;
    const starts = (replay.dataset.roundStarts || "").split(" ").filter(Boolean).map(Number);
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
    const current = wanted === null ? Number(document.getElementById("replay").dataset.ply) : wanted;
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
