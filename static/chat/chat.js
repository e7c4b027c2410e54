// The game's chat (templates/chat/_panel.html): sends a message through the API without leaving
// the page, and shows new messages as they come, asked for when the board's live update says the
// game changed and on a light poll of its own while the page is visible. Messages are plain text:
// only ever set as textContent, never as markup.
(function () {
  "use strict";
  const POLL_MS = 8000;
  const panel = document.getElementById("chat");
  if (!panel) return;
  const list = document.getElementById("chat-messages");
  const form = document.getElementById("chat-form");
  const status = document.getElementById("chat-status");
  const t = (s) => (window.gettext ? window.gettext(s) : s);
  let newest = Number(panel.dataset.newest || 0);
  let asking = false;

  function csrfToken() {
    const input = panel.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function add(message) {
    if (!list || message.id <= newest) return;
    newest = message.id;
    const empty = document.getElementById("chat-empty");
    if (empty) empty.remove();
    const item = document.createElement("li");
    item.className = "chat-message" + (message.is_viewer ? " own" : "");
    item.dataset.id = String(message.id);
    item.dataset.ply = String(message.ply);
    if (message.hidden) {
      const text = document.createElement("span");
      text.className = "chat-text meta";
      text.textContent = t("message hidden by a moderator");
      item.appendChild(text);
    } else {
      const author = document.createElement("span");
      author.className = "chat-author";
      author.textContent = message.author;
      const text = document.createElement("span");
      text.className = "chat-text";
      text.textContent = message.text;
      item.append(author, text);
      if (!message.is_viewer) item.appendChild(reportForm(message.id));
    }
    list.appendChild(item);
    list.scrollTop = list.scrollHeight;
  }

  // The Report button of a message that came by script: the same form as the page's own
  // (templates/chat/_panel.html), posted the same way.
  function reportForm(id) {
    const details = document.createElement("details");
    details.className = "chat-report";
    const summary = document.createElement("summary");
    summary.textContent = t("Report");
    const form = document.createElement("form");
    form.method = "post";
    form.action = panel.dataset.reportUrl;
    const csrf = document.createElement("input");
    csrf.type = "hidden";
    csrf.name = "csrfmiddlewaretoken";
    csrf.value = csrfToken();
    const which = document.createElement("input");
    which.type = "hidden";
    which.name = "message";
    which.value = String(id);
    const label = document.createElement("label");
    label.htmlFor = "chat-reason-" + id;
    label.textContent = t("Why do you report this message?");
    const reason = document.createElement("input");
    reason.type = "text";
    reason.id = "chat-reason-" + id;
    reason.name = "reason";
    reason.maxLength = 500;
    reason.required = true;
    const send = document.createElement("button");
    send.type = "submit";
    send.className = "chat-button";
    send.textContent = t("Send the report");
    form.append(csrf, which, label, reason, send);
    details.append(summary, form);
    return details;
  }

  async function refresh() {
    if (asking || !list) return;
    asking = true;
    try {
      const url = newest > 0 ? panel.dataset.api + "?after=" + newest : panel.dataset.api;
      const response = await fetch(url, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.ok) {
        const page = await response.json();
        page.messages.forEach(add);
      }
    } catch (e) {
      // Offline for a moment: the next poll asks again.
    } finally {
      asking = false;
    }
  }

  function postJson(url, data) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": csrfToken(),
      },
      body: JSON.stringify(data),
    });
  }

  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const textarea = form.querySelector("textarea");
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      status.textContent = t("Sending…");
      try {
        const response = await postJson(panel.dataset.api, { text: textarea.value });
        const body = await response.json().catch(() => ({}));
        if (response.status === 201) {
          await refresh();
          add(body);
          textarea.value = "";
          status.textContent = t("Sent.");
        } else {
          status.textContent = body.detail || t("Your message was not sent: try again.");
        }
      } catch (e) {
        status.textContent = t("Your message was not sent: try again.");
      } finally {
        button.disabled = false;
        textarea.focus();
      }
    });
  }

  // A report goes through the API, and its answer is said in the report's own box, where the
  // player is, with the keyboard brought to it (without the script, the page says it at its top).
  function reportApi(id) {
    return panel.dataset.reportApi.replace(/\/0\/report\/$/, "/" + encodeURIComponent(id) + "/report/");
  }

  function reportAnswer(form, text, done) {
    let answer = form.parentNode.querySelector(".chat-report-answer");
    if (!answer) {
      answer = document.createElement("p");
      answer.className = "chat-report-answer";
      answer.tabIndex = -1;
      form.after(answer);
    }
    answer.setAttribute("role", done ? "status" : "alert");
    answer.classList.toggle("error", !done);
    answer.textContent = text;
    if (done) form.remove();
    answer.focus();
  }

  panel.addEventListener("submit", async (event) => {
    const form = event.target.closest(".chat-report form");
    if (!form || !panel.dataset.reportApi) return;
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const response = await postJson(reportApi(form.elements.message.value), {
        reason: form.elements.reason.value,
      });
      if (response.status === 201) {
        reportAnswer(form, t("Thank you: a moderator will look at the message."), true);
        return;
      }
      const body = await response.json().catch(() => ({}));
      reportAnswer(form, body.detail || t("Your report was not sent: try again."), false);
    } catch (e) {
      reportAnswer(form, t("Your report was not sent: try again."), false);
    } finally {
      button.disabled = false;
    }
  });

  document.addEventListener("azul:game-changed", refresh);
  // The board's live wait saw a new message (or one hidden) without the game changing.
  document.addEventListener("azul:chat-changed", refresh);
  window.setInterval(() => {
    if (document.visibilityState === "visible") refresh();
  }, POLL_MS);
})();
