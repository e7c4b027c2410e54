// The sign-up form's hidden time_zone field, from the browser's time zone
// (accounts.forms.SignupForm checks it against the server's time zone database).
(function () {
  "use strict";
  const field = document.querySelector("input[type=hidden][name=time_zone]");
  if (!field || field.value) return;
  try {
    field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    // No Intl: the player starts on UTC and can choose in their settings.
  }
})();
