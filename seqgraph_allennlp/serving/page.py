"""
The page at `GET /` of the parser service: a text box whose sentences it shows step by step, each in the view
that `python -m seqgraph_allennlp.plot --html` writes. Nothing is loaded from outside.
"""
import html


def page(model_name: str) -> str:
    """The page, naming the model (escaped) that the service parses with."""
    return _PAGE.replace("{model}", html.escape(model_name))


# Each sentence's step view is the page that `plot --html` writes, in an <iframe srcdoc> of its own (its
# script and ids do not meet the others'); the words reach it only inside that page, which escapes them
# itself, and the messages are set with textContent.
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>seqgraph parser</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
  margin: 16px 20px; color: #222; background: #fff; }
h1 { font-size: 19px; font-weight: 600; margin: 0 0 4px; }
.meta { color: #666; font-size: 13px; margin-bottom: 10px; }
textarea { width: 100%; max-width: 900px; box-sizing: border-box; font: inherit; font-size: 15px; padding: 6px; }
.controls { margin: 6px 0 14px; display: flex; gap: 10px; align-items: center; }
button { font-size: 15px; padding: 4px 16px; }
#status { color: #666; font-size: 13px; }
#status.error, .sentence-error { color: #b00020; }
iframe.view { display: block; width: 100%; border: 0; border-top: 1px solid #ddd; min-height: 120px; }
</style>
</head>
<body>
<h1>Sequential graph parser</h1>
<div class="meta">Model <code>{model}</code>. Each sentence is parsed and shown step by step, as
<code>python -m seqgraph_allennlp.plot --html</code> shows it; <code>POST /parse</code> answers JSON or
CoNLL-U.</div>
<form id="form">
<textarea id="text" name="text" rows="5" aria-label="text to parse"
 placeholder="Type or paste text: one sentence or several.">The cat sat on the mat. It didn't move.</textarea>
<div class="controls"><button id="parse" type="submit">Parse</button><span id="status"></span></div>
</form>
<div id="results"></div>
<script>
(function () {
  "use strict";
  var form = document.getElementById("form");
  var text = document.getElementById("text");
  var button = document.getElementById("parse");
  var status = document.getElementById("status");
  var results = document.getElementById("results");

  function say(message, isError) {
    status.textContent = message;
    status.className = isError ? "error" : "";
  }

  function fit(frame) {
    var page = frame.contentDocument;
    if (page && page.documentElement) frame.style.height = (page.documentElement.scrollHeight + 4) + "px";
  }

  function show(sentences) {
    results.textContent = "";
    sentences.forEach(function (sentence, index) {
      var section = document.createElement("section");
      section.className = "sentence";
      if (sentence.html === undefined) {
        var message = document.createElement("p");
        message.className = "sentence-error";
        message.textContent = "Sentence " + (index + 1) + " not parsed: " + sentence.error;
        section.appendChild(message);
      } else {
        var frame = document.createElement("iframe");
        frame.className = "view";
        frame.title = "sentence " + (index + 1);
        frame.addEventListener("load", function () { fit(frame); });
        frame.srcdoc = sentence.html;
        section.appendChild(frame);
      }
      results.appendChild(section);
    });
    say(sentences.length + (sentences.length === 1 ? " sentence" : " sentences"), false);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!text.value.trim()) { say("Type some text first.", true); return; }
    button.disabled = true;
    say("Parsing\\u2026", false);
    fetch("view", {method: "POST", headers: {"Content-Type": "application/json"},
                   body: JSON.stringify({text: text.value})})
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) throw new Error(body.error || response.statusText);
          show(body.sentences);
        });
      })
      .catch(function (error) { say("Error: " + error.message, true); })
      .then(function () { button.disabled = false; });
  });
  text.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
})();
</script>
</body>
</html>
"""
