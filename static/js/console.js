// Behaviour the console's templates ask for with data attributes instead of inline handlers, so the
// Content-Security-Policy can forbid inline script (script-src 'self').
//   <form class="switcher">     opens the workspace chosen in its select
//   <form data-confirm="…">     asks before submitting
(function () {
  document.addEventListener("change", (event) => {
    const form = event.target.form;
    if (form && form.classList.contains("switcher") && form.workspace.value) {
      location.href = "/w/" + encodeURIComponent(form.workspace.value) + "/";
    }
  });
  document.addEventListener("submit", (event) => {
    const message = event.target.dataset && event.target.dataset.confirm;
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();
