// A "Copy" button on every element marked data-copy (the message, code, each fix).
// It copies the attribute's value when it has one, else the element's text without
// line numbers. A file, not inline script: the Content-Security-Policy allows no other.
"use strict";

(function () {
  function textOf(element) {
    if (element.dataset.copy) return element.dataset.copy;
    const clone = element.cloneNode(true);
    clone.querySelectorAll(".linenos, button.copy").forEach((node) => node.remove());
    return clone.textContent.trim();
  }

  // Without the Clipboard API (a page served over plain http), a selected textarea.
  function copyWithSelection(text) {
    const buffer = document.createElement("textarea");
    buffer.className = "copy-buffer";
    buffer.value = text;
    buffer.setAttribute("readonly", "");
    document.body.appendChild(buffer);
    buffer.select();
    const copied = document.execCommand("copy");
    buffer.remove();
    return copied ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(() => copyWithSelection(text));
    }
    return copyWithSelection(text);
  }

  function say(button, words) {
    button.textContent = words;
    window.setTimeout(() => { button.textContent = "Copy"; }, 1500);
  }

  function addButton(element) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy to the clipboard");
    button.addEventListener("click", () => {
      copy(textOf(element)).then(() => say(button, "Copied"), () => say(button, "Copy failed"));
    });
    element.prepend(button);
  }

  function start() {
    document.querySelectorAll("[data-copy]").forEach(addButton);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
