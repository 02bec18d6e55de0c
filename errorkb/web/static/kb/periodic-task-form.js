// django-celery-beat's periodic task form, as its template has it inline: show what
// the chosen crontab means under the field. A file, so the CSP needs no inline script.
"use strict";
{
  const $ = django.jQuery;
  const readableCrontabs = JSON.parse($("#readable-crontabs").text());
  const originalCrontabHelp = document.currentScript.dataset.crontabHelp;

  // As text, not HTML: a crontab's description is data.
  const updateCrontabHelp = (additional) => {
    $(".field-crontab .help")
      .text(originalCrontabHelp)
      .append("<br>", document.createTextNode(`Translation: ${additional}`));
  };

  $(".field-crontab_translation").hide();
  $(".field-crontab").change(() => {
    updateCrontabHelp(readableCrontabs[$("#id_crontab").val()]);
  });
}
