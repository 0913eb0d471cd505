// Live preview: press the form's own Preview button (which posts the unsaved form into the
// frame beside it) once on load and again when the author pauses typing. Without this script
// the button works by hand; nothing here saves or sends anything the button does not.
(function () {
  "use strict";
  var button = document.querySelector("button.preview-button");
  if (!button || !button.form || !button.form.requestSubmit) {
    return;
  }
  var form = button.form;
  var timer = null;
  function refresh() {
    form.requestSubmit(button);
  }
  form.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 800);
  });
  refresh();
})();
