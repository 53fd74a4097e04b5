// Behaviour the console's templates ask for with data attributes instead of inline handlers, so the
// Content-Security-Policy can forbid inline script (script-src 'self').
//   <form class="switcher">     opens the workspace chosen in its select: on a click, or on Enter
//                                (arrow keys only move through the list, as in any select)
//   <form data-confirm="…">     asks before submitting
//   <input data-select-all="N"> ticks or clears every checkbox named N in its table
//   review queue keys            (below) j/k, a verdict's letter, ? for help; see _keys_help.html
//   <div class="toasts">         floats the page's notes at the corner, each with a close button
//   <button data-copy-target=ID> copies the text (or value) of element ID to the clipboard
(function () {
  document.addEventListener("DOMContentLoaded", () => {
    const toasts = document.getElementById("messages");
    if (toasts) {
      toasts.classList.add("floating");
      toasts.querySelectorAll("[data-dismiss]").forEach((button) => { button.hidden = false; });
    }
    document.querySelectorAll("button[data-copy-target]").forEach((button) => { button.hidden = false; });
  });
  document.addEventListener("click", (event) => {
    const close = event.target.closest("[data-dismiss]");
    if (close) {
      const box = close.closest(".toast");
      const all = box.parentElement;
      box.remove();
      if (!all.children.length) all.remove();
      return;
    }
    const copy = event.target.closest("button[data-copy-target]");
    if (!copy) return;
    const source = document.getElementById(copy.dataset.copyTarget);
    if (!source) return;
    const text = "value" in source && source.tagName !== "BUTTON" ? source.value : source.textContent.trim();
    const words = copy.querySelector("span") || copy;  // the label beside the button's icon
    const label = copy.dataset.label || (copy.dataset.label = words.textContent);
    const done = (word) => {
      words.textContent = word;
      copy.dataset.copied = "";
      setTimeout(() => { words.textContent = label; delete copy.dataset.copied; }, 2000);
    };
    // The clipboard API needs a secure context (HTTPS or localhost); elsewhere select the text so
    // that Ctrl+C copies it.
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(() => done("Copied"), () => done("Press Ctrl+C"));
    } else {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      done("Selected: press Ctrl+C");
    }
  });
})();

(function () {
  const open = (form) => {
    if (form.workspace.value) location.href = "/w/" + encodeURIComponent(form.workspace.value) + "/";
  };
  let byKey = false;  // the pending change came from an arrow key, not a choice
  document.addEventListener("keydown", (event) => {
    const form = event.target.form;
    if (!form || !form.classList.contains("switcher")) return;
    byKey = event.key !== "Enter";
    if (event.key === "Enter") open(form), event.preventDefault();
  });
  document.addEventListener("pointerdown", () => { byKey = false; });
  document.addEventListener("change", (event) => {
    const form = event.target.form;
    if (form && form.classList.contains("switcher") && !byKey) open(form);
    const all = event.target.dataset && event.target.dataset.selectAll;
    if (all) {
      const table = event.target.closest("table");
      table.querySelectorAll('input[type=checkbox][name="' + all + '"]').forEach((box) => {
        box.checked = event.target.checked;
      });
    }
  });
  document.addEventListener("submit", (event) => {
    const message = event.target.dataset && event.target.dataset.confirm;
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();

// Review queue keys. On an item page: j/k (or →/←) follow the links with data-key-nav, a verdict's
// letter (data-key on its button) focuses that button and a second press clicks it, so the form's
// own confirmation, CSRF token and POST are what apply it. On the list: j/k move a highlight between
// rows, Enter opens the row, x ticks its checkbox. Never while typing, never with a modifier.
(function () {
  const typing = (el) => el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  const help = () => document.getElementById("keys-help");
  const toggleHelp = (open) => {
    const box = help();
    if (box) box.hidden = open === undefined ? !box.hidden : !open;
  };
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-keys-close]")) toggleHelp(false);
  });
  document.addEventListener("DOMContentLoaded", () => {
    const next = document.querySelector("[data-key-focus]");
    if (next && !document.querySelector("#review-verdicts form:not([data-confirm])")) next.focus({ preventScroll: true });
  });

  const rows = () => Array.from(document.querySelectorAll("[data-queue-row]"));
  function moveRow(step) {
    const all = rows();
    if (!all.length) return false;
    const at = all.findIndex((row) => row.classList.contains("key-current"));
    const to = Math.max(0, Math.min(all.length - 1, at < 0 ? 0 : at + step));
    all.forEach((row) => row.classList.remove("key-current"));
    all[to].classList.add("key-current");
    all[to].scrollIntoView({ block: "nearest" });
    return true;
  }
  const currentRow = () => document.querySelector("[data-queue-row].key-current");

  function follow(name) {
    const link = document.querySelector('[data-key-nav="' + name + '"]');
    if (link) location.href = link.href;
    return Boolean(link);
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key;
    if (key === "?") return toggleHelp(), event.preventDefault();
    if (key === "Escape") {
      const status = document.getElementById("key-status");
      if (status) status.textContent = "";
      if (document.activeElement && document.activeElement.dataset.key) document.activeElement.blur();
      return toggleHelp(false);
    }
    let done = false;
    if (rows().length) {  // the list page
      if (key === "j" || key === "k") done = moveRow(key === "j" ? 1 : -1);
      else if (key === "Enter" && currentRow() && !event.target.closest("a, button")) {
        const link = currentRow().querySelector("a[href]");
        if (link) done = (location.href = link.href, true);
      } else if (key === "x" && currentRow()) {
        const box = currentRow().querySelector("input[type=checkbox]");
        if (box) done = (box.click(), true);
      }
    } else if (key === "j" || key === "ArrowRight") done = follow("next");
    else if (key === "k" || key === "ArrowLeft") done = follow("previous");
    else if (key === "q") done = follow("list");
    else {
      const button = document.querySelector('button[data-key="' + CSS.escape(key) + '"]');
      if (button) {
        const status = document.getElementById("key-status");
        if (document.activeElement === button) button.click();
        else {
          button.focus();
          if (status) status.textContent = "Press " + key + " again (or Enter) to " + button.value + "; Tab or Esc to leave it.";
        }
        done = true;
      }
    }
    if (done) event.preventDefault();
  });
})();
