"use strict";
// trustprobe report page script. Every text from the report reaches the DOM through
// textContent or an attribute value, never as markup: agent responses are hostile input.
(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var PAGE_SIZE = 50;
  var data = JSON.parse(document.getElementById("trustprobe-data").textContent);
  var cases = data.cases;
  var probes = data.probes;
  var strings = data.strings;
  var total = data.total;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function str(index) { return index >= 0 ? strings[index] : null; }
  function fixed(value, digits) { return value === null ? "—" : value.toFixed(digits); }
  function probeOf(i) { return cases.probe[i]; }
  function probeId(i) { return probes.id[probeOf(i)]; }
  function category(i) { return data.categories[probes.category[probeOf(i)]]; }
  function severity(i) { return data.severities[probes.severity[probeOf(i)]]; }
  function lowConfidence(i) {
    var c = cases.confidence[i];
    return c !== null && c < data.low_confidence;
  }

  function readingText(i) {
    var r = cases.reading[i];
    if (r === null) return null;
    return data.readings[r] + " · confidence " + fixed(cases.confidence[i], 2);
  }

  function verdictNode(i) {
    var v = cases.verdict[i];
    if (v === null) return el("span", "verdict error", "error");
    return v ? el("span", "verdict pass", "pass") : el("span", "verdict fail", "fail");
  }

  // ---- case explorer ---------------------------------------------------------------------
  var explorer = document.getElementById("explorer");
  var rows = document.getElementById("case-rows");
  var search = document.getElementById("f-search");
  var fVerdict = document.getElementById("f-verdict");
  var fCategory = document.getElementById("f-category");
  var fSeverity = document.getElementById("f-severity");
  var fSort = document.getElementById("f-sort");
  var countLine = document.getElementById("case-count");
  var pageInfo = document.getElementById("page-info");
  var prev = document.getElementById("page-prev");
  var next = document.getElementById("page-next");
  var page = 0;
  var filtered = [];
  var orders = {};

  data.categories.forEach(function (name, i) { fCategory.add(new Option(name, String(i))); });
  data.severities.forEach(function (name, i) { fSeverity.add(new Option(name, String(i))); });

  function order(key) {
    if (orders[key]) return orders[key];
    var idx = new Array(total);
    for (var i = 0; i < total; i++) idx[i] = i;
    var w = cases.weighted, r = cases.risk, c = cases.confidence;
    if (key === "review") idx.sort(function (a, b) {
      // Verdicts the rules were unsure of first (least sure first), then by weighted risk.
      var la = lowConfidence(a), lb = lowConfidence(b);
      if (la !== lb) return la ? -1 : 1;
      if (la && c[a] !== c[b]) return c[a] - c[b];
      return (w[b] || 0) - (w[a] || 0) || a - b;
    });
    else if (key === "weighted") idx.sort(function (a, b) { return (w[b] || 0) - (w[a] || 0) || a - b; });
    else if (key === "risk") idx.sort(function (a, b) { return (r[b] || 0) - (r[a] || 0) || a - b; });
    else if (key === "id") idx.sort(function (a, b) {
      var pa = probeId(a), pb = probeId(b);
      return pa < pb ? -1 : pa > pb ? 1 : cases.sample[a] - cases.sample[b];
    });
    orders[key] = idx;
    return idx;
  }

  function matches(i, needle, verdict, cat, sev) {
    if (verdict !== "") {
      var v = cases.verdict[i];
      if (verdict === "e" ? v !== null : v !== Number(verdict)) return false;
    }
    if (cat !== "" && probes.category[probeOf(i)] !== Number(cat)) return false;
    if (sev !== "" && probes.severity[probeOf(i)] !== Number(sev)) return false;
    if (needle) {
      if (probeId(i).toLowerCase().indexOf(needle) >= 0) return true;
      var texts = [str(cases.explanation[i]), str(cases.response[i]), str(cases.trace[i])];
      for (var t = 0; t < texts.length; t++) {
        if (texts[t] !== null && texts[t].toLowerCase().indexOf(needle) >= 0) return true;
      }
      return false;
    }
    return true;
  }

  function applyFilters() {
    var needle = search.value.trim().toLowerCase();
    var verdict = fVerdict.value, cat = fCategory.value, sev = fSeverity.value;
    var source = order(fSort.value);
    filtered = [];
    for (var k = 0; k < source.length; k++) {
      if (matches(source[k], needle, verdict, cat, sev)) filtered.push(source[k]);
    }
    page = 0;
    renderPage();
  }

  function textBlock(title, text, cut) {
    var frag = document.createDocumentFragment();
    frag.appendChild(el("h4", null, title));
    var pre = el("pre", "text" + (title === "Response" ? " response" : ""), text);
    if (cut) pre.appendChild(el("span", "cut", "… (cut here; the full text is in report.json)"));
    frag.appendChild(pre);
    return frag;
  }

  function notEmbedded(what, i) {
    return el("p", "empty", what + " not embedded in this file (size budget): see cases[" + i +
      "] in report.json.");
  }

  function fillBody(body, i) {
    var explanation = str(cases.explanation[i]);
    if (explanation === null) {
      body.appendChild(notEmbedded("The texts of this case are", i));
      return;
    }
    body.appendChild(el("p", "explanation", explanation));
    var facts = el("dl", "facts");
    var p = probeOf(i);
    [["Expected", probes.expected[p]], ["Risk score", fixed(cases.risk[i], 3)],
     ["Weighted risk", fixed(cases.weighted[i], 3)], ["Harness error", str(cases.error[i]) || "—"],
     ["Reading", (readingText(i) || "—") + (str(cases.cues[i]) ? " (" + str(cases.cues[i]) + ")" : "")],
     ["Judge", str(cases.judge[i]) || "not asked"],
     ["report.json", "cases[" + i + "]"]].forEach(function (pair) {
      facts.appendChild(el("dt", null, pair[0]));
      facts.appendChild(el("dd", null, pair[1]));
    });
    body.appendChild(facts);
    var task = str(probes.task[p]), input = str(probes.input[p]);
    var limit = data.text_chars;
    if (task === null) body.appendChild(notEmbedded("The probe's task and input are", i));
    else {
      body.appendChild(textBlock("Task", task, task.length >= limit));
      body.appendChild(textBlock("Input", input, input.length >= limit));
    }
    var response = str(cases.response[i]);
    if (response !== null) body.appendChild(textBlock("Response", response, cases.cut[i] === 1));
    else if (cases.verdict[i] === null) body.appendChild(el("p", "empty", "No response (harness error)."));
    else body.appendChild(notEmbedded("The response is", i));
    var trace = str(cases.trace[i]);
    if (trace !== null) body.appendChild(textBlock("Tool calls", trace, false));
  }

  function caseRow(i) {
    var details = el("details", "case");
    details.dataset.case = String(i);
    var summary = el("summary");
    summary.appendChild(el("span", "case-id", probeId(i)));
    if (cases.sample[i]) summary.appendChild(el("span", "muted", "sample " + cases.sample[i]));
    summary.appendChild(el("span", "chip", category(i)));
    var sev = severity(i);
    summary.appendChild(el("span", "sev sev-" + sev, sev));
    summary.appendChild(verdictNode(i));
    var reading = readingText(i);
    if (reading !== null) {
      summary.appendChild(el("span", "reading" + (lowConfidence(i) ? " low-confidence" : ""),
        (lowConfidence(i) ? "review · " : "") + reading));
    }
    summary.appendChild(el("span", "risk", "weighted risk " + fixed(cases.weighted[i], 2)));
    var explanation = str(cases.explanation[i]);
    if (explanation !== null) summary.appendChild(el("span", "summary-expl", explanation));
    details.appendChild(summary);
    var body = el("div", "case-body");
    details.appendChild(body);
    details.addEventListener("toggle", function () {
      // Lazily built: a page of 50 closed rows costs almost nothing.
      if (details.open && !body.firstChild) fillBody(body, i);
    });
    return details;
  }

  function renderPage() {
    var pages = Math.max(1, Math.ceil(filtered.length / PAGE_SIZE));
    if (page >= pages) page = pages - 1;
    var start = page * PAGE_SIZE;
    var frag = document.createDocumentFragment();
    filtered.slice(start, start + PAGE_SIZE).forEach(function (i) { frag.appendChild(caseRow(i)); });
    rows.replaceChildren(frag);
    countLine.textContent = filtered.length.toLocaleString("en-US") + " of " +
      total.toLocaleString("en-US") + " cases match" +
      (data.texts_embedded < total ? " · responses embedded for " +
        data.texts_embedded.toLocaleString("en-US") + " cases, explanations for " +
        data.explanations_embedded.toLocaleString("en-US") + " (failures first)" : "");
    pageInfo.textContent = "Page " + (page + 1).toLocaleString("en-US") + " of " +
      pages.toLocaleString("en-US");
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  var pending = null;
  search.addEventListener("input", function () {
    clearTimeout(pending);
    pending = setTimeout(applyFilters, 150);
  });
  [fVerdict, fCategory, fSeverity, fSort].forEach(function (node) {
    node.addEventListener("change", applyFilters);
  });
  prev.addEventListener("click", function () { page -= 1; renderPage(); });
  next.addEventListener("click", function () { page += 1; renderPage(); });

  function showCase(i) {
    search.value = probeId(i);
    fVerdict.value = ""; fCategory.value = ""; fSeverity.value = "";
    applyFilters();
    var row = rows.querySelector('details[data-case="' + i + '"]');
    if (row) { row.open = true; row.scrollIntoView({ block: "center" }); }
  }

  explorer.hidden = false;
  applyFilters();

  // ---- failure-geometry scatter ----------------------------------------------------------
  var scatter = data.scatter;
  var plot = document.getElementById("scatter");
  if (scatter && plot) {
    var W = 640, H = 420, PAD = 18;
    var palette = data.palette;
    var outcomeColour = { pass: "#3a9a66", fail: "#d2504a" };
    var xs = scatter.x, ys = scatter.y;
    var minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (var m = 0; m < xs.length; m++) {
      if (xs[m] < minX) minX = xs[m];
      if (xs[m] > maxX) maxX = xs[m];
      if (ys[m] < minY) minY = ys[m];
      if (ys[m] > maxY) maxY = ys[m];
    }
    var spanX = maxX - minX || 1, spanY = maxY - minY || 1;
    var radius = xs.length > 2000 ? 2.2 : xs.length > 500 ? 3 : 4;
    var frag = document.createDocumentFragment();
    var dots = [];
    for (var k = 0; k < xs.length; k++) {
      var dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", (PAD + (xs[k] - minX) / spanX * (W - 2 * PAD)).toFixed(1));
      dot.setAttribute("cy", (H - PAD - (ys[k] - minY) / spanY * (H - 2 * PAD)).toFixed(1));
      dot.setAttribute("r", String(radius));
      dot.setAttribute("data-k", String(k));
      dots.push(dot);
      frag.appendChild(dot);
    }
    plot.appendChild(frag);

    var legend = document.getElementById("scatter-legend");
    function legendItem(colour, label) {
      var item = el("span", "legend-item");
      var sw = document.createElementNS(SVG, "svg");
      sw.setAttribute("viewBox", "0 0 14 10");
      sw.setAttribute("class", "legend-swatch");
      var rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("width", "14"); rect.setAttribute("height", "10"); rect.setAttribute("rx", "2");
      rect.setAttribute("fill", colour);
      sw.appendChild(rect);
      item.appendChild(sw);
      item.appendChild(document.createTextNode(label));
      return item;
    }
    function colourBy(mode) {
      for (var k = 0; k < dots.length; k++) {
        var i = scatter.case[k];
        var colour = mode === "cluster"
          ? palette[scatter.cluster[k] % palette.length]
          : (cases.verdict[i] ? outcomeColour.pass : outcomeColour.fail);
        dots[k].setAttribute("fill", colour);
      }
      var items = mode === "cluster"
        ? scatter.clusters.map(function (c) {
            return legendItem(palette[c.id % palette.length],
              "cluster " + c.id + " (" + c.size.toLocaleString("en-US") + ")");
          })
        : [legendItem(outcomeColour.pass, "pass"), legendItem(outcomeColour.fail, "fail")];
      legend.replaceChildren.apply(legend, items);
    }
    document.querySelectorAll('input[name="colour-by"]').forEach(function (radio) {
      radio.addEventListener("change", function () { if (radio.checked) colourBy(radio.value); });
    });
    colourBy("cluster");

    var tip = document.getElementById("scatter-tip");
    var card = plot.parentNode;
    plot.addEventListener("mouseover", function (event) {
      var k = event.target.getAttribute && event.target.getAttribute("data-k");
      if (k === null || k === undefined) return;
      var i = scatter.case[Number(k)];
      var lines = [
        category(i) + " · " + severity(i) + " · " +
          (cases.verdict[i] ? "pass" : "fail") + " · cluster " + scatter.cluster[Number(k)],
        "risk " + fixed(cases.risk[i], 2) + " · weighted " + fixed(cases.weighted[i], 2),
      ];
      var explanation = str(cases.explanation[i]);
      if (explanation !== null) lines.push(explanation.length > 180 ? explanation.slice(0, 179) + "…" : explanation);
      var title = el("div", "tip-title", probeId(i) + (cases.sample[i] ? " · sample " + cases.sample[i] : ""));
      tip.replaceChildren(title);
      lines.forEach(function (line) { tip.appendChild(el("div", "tip-line", line)); });
      var box = card.getBoundingClientRect(), at = event.target.getBoundingClientRect();
      var left = at.left - box.left + 12, top = at.top - box.top + 12;
      tip.hidden = false;
      if (left + tip.offsetWidth > box.width - 8) left = at.left - box.left - tip.offsetWidth - 8;
      tip.style.left = left + "px";
      tip.style.top = top + "px";
    });
    plot.addEventListener("mouseout", function (event) {
      if (event.target.tagName === "circle") tip.hidden = true;
    });
    plot.addEventListener("click", function (event) {
      var k = event.target.getAttribute && event.target.getAttribute("data-k");
      if (k !== null && k !== undefined) showCase(scatter.case[Number(k)]);
    });
  }

  document.documentElement.setAttribute("data-rendered", "true");
  if (window.performance && performance.mark) performance.mark("trustprobe-rendered");
})();
