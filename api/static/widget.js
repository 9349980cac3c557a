/*
 * Fabric Advisor web chat: talks to Rasa's socket.io channel.
 *
 * Where Rasa is, first found wins:
 *   1. the page's query string: /?rasa=http://host:5005 (this page's host, another port)
 *   2. window.FABRIC_ADVISOR_CONFIG = {rasaUrl, rasaPort}, set by /widget-config.js when
 *      the API serves one (deployments behind a proxy)
 *   3. this page's host name on port 5005 (what `make run` starts)
 *
 * The session id is issued and signed by the API (POST /v1/chat/sessions on the page's
 * own origin); Rasa's channel (bot/channels/web.py) refuses any other with
 * `session_refused` and a disconnect, and the page then asks the API for a new one.
 *
 * Rasa's socket.io protocol (rasa/core/channels/socketio.py, session_persistence on):
 *   client -> session_request {session_id}      server -> session_confirm <session_id>
 *                                               | session_refused {detail}
 *   client -> user_uttered {message, session_id}
 *   server -> bot_uttered {text} | {text, quick_replies: [{title, payload}]}
 *             | {attachment: {type: "image", payload: {src}}}
 *             | custom JSON: {recommendation, diagram_url}, drawn as a card. Rasa emits a
 *               custom message's keys as socket.io emit() arguments, so the action sends
 *               json_message={"data": {...}} and the page receives the inner object.
 * Rasa splits a text reply at blank lines and sends each part as its own event; parts
 * that arrive together are joined back into one message before the markdown is drawn.
 *
 * The conversation (messages and the session id) is kept in sessionStorage, so a reload
 * shows the history and carries on the same Rasa conversation. Markdown is rendered by
 * marked and sanitised by DOMPurify; everything else is put in the page as text (what
 * the visitor typed included), and a URL from the bot (diagram, image) is used only
 * when its scheme is http or https.
 */
(function () {
  "use strict";

  var STORE_KEY = "fabric-advisor.chat.v1";
  var JOIN_WINDOW_MS = 1500; // text parts closer than this belong to one reply
  var TYPING_TIMEOUT_MS = 45000;
  var MAX_STORED_MESSAGES = 200;

  var TOPOLOGY_NAMES = {
    single_node: "single server (no switch fabric)",
    fat_tree: "fat-tree (Clos)",
    rail_optimized: "rail-optimized (DGX SuperPOD layout)",
    dragonfly_plus: "Dragonfly+"
  };
  var PORT_ROLES = {
    compute: "compute",
    storage: "storage",
    inband_management: "in-band management",
    out_of_band: "out-of-band management",
    inference_traffic: "inference traffic"
  };

  // ------------------------------------------------------------------ state

  var state = load();
  var socket = null;
  var confirmed = false;
  var outbox = [];
  var typingTimer = null;
  var refusals = 0; // sessions Rasa refused since the last confirmed one

  var el = {};

  function load() {
    try {
      var saved = JSON.parse(sessionStorage.getItem(STORE_KEY) || "null");
      if (saved && Array.isArray(saved.messages)) return saved;
    } catch (e) { /* a broken entry starts a new conversation */ }
    return { sessionId: null, messages: [] };
  }

  function save() {
    state.messages = state.messages.slice(-MAX_STORED_MESSAGES);
    try { sessionStorage.setItem(STORE_KEY, JSON.stringify(state)); } catch (e) { /* storage full or off */ }
  }

  function rasaUrl() {
    var param = new URLSearchParams(window.location.search).get("rasa");
    if (param && sameHost(param)) return param.replace(/\/+$/, "");
    var config = window.FABRIC_ADVISOR_CONFIG || {};
    if (config.rasaUrl) return String(config.rasaUrl).replace(/\/+$/, "");
    var port = config.rasaPort || 5005;
    return window.location.protocol + "//" + window.location.hostname + ":" + port;
  }

  /** ?rasa= may name another port of this host, never another host (a link must not
   *  point the page at someone else's bot). */
  function sameHost(url) {
    try {
      var u = new URL(url, window.location.href);
      return (u.protocol === "http:" || u.protocol === "https:") && u.hostname === window.location.hostname;
    } catch (e) { return false; }
  }

  /** url when it is an http(s) URL (relative ones resolved against the page), else null:
   *  never a javascript: or data: URL in an href or src. */
  function safeUrl(url) {
    if (typeof url !== "string" || !url) return null;
    try {
      var u = new URL(url, window.location.href);
      return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
    } catch (e) { return null; }
  }

  // --------------------------------------------------------------- formatting
  // The same wording as advisor/render/markdown.py, for the card.

  function usd(amount) {
    if (amount >= 1e6) return "$" + (amount / 1e6).toFixed(2).replace(/\.?0+$/, "") + "M";
    if (amount >= 1e3) return "$" + Math.round(amount / 1e3) + "K";
    return "$" + Math.round(amount);
  }

  function costRange(low, high) {
    return high === 0 ? "none (included in the servers)" : usd(low) + " – " + usd(high);
  }

  function duration(ms) {
    return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(1) + " ms";
  }

  function num(n) { return Number(n).toLocaleString("en-US"); }

  function plural(n, word) { return num(n) + " " + word + (n === 1 ? "" : "s"); }

  function topologyLine(t) {
    var name = TOPOLOGY_NAMES[t.kind] || t.kind;
    if (t.kind === "single_node") return name;
    var parts = [name, plural(t.tiers, "tier")];
    if (t.rails > 1) parts.push(t.rails + " rails");
    if (t.scalable_units) parts.push(plural(t.scalable_units, "scalable unit"));
    if (t.oversubscription > 1) parts.push(t.oversubscription + ":1 oversubscribed");
    return parts.join(", ");
  }

  function switchTiers(t) {
    return [["leaf", t.leaf_switches], ["spine", t.spine_switches], ["core", t.core_switches]]
      .filter(function (tier) { return tier[1] > 0; });
  }

  function totalSwitches(t) { return t.leaf_switches + t.spine_switches + t.core_switches; }

  function portsLines(ports) {
    return ports.filter(function (p) { return p.count > 0; }).map(function (p) {
      return p.count + " × " + p.gbps + "G " + (PORT_ROLES[p.role] || p.role);
    });
  }

  function cablesLine(t) {
    if (!t.cables || !t.cables.length) return "none";
    return t.cables.map(function (c) { return num(c.count) + " " + c.tier + " (" + c.gbps + "G)"; }).join(", ");
  }

  var CATEGORY_NAMES = {
    "switch": "switches", nic: "NICs", transceiver: "optics", cable: "cables", fibre: "fibre",
    software: "software", spare: "spares"
  };
  var FABRIC_NAMES = {
    compute: "compute fabric", storage: "storage", in_band: "in-band management", out_of_band: "out-of-band management"
  };

  /** Links beside the diagram: the printable report and the BOM as CSV (same base URL). */
  function siblingUrl(diagramUrl, name) {
    return diagramUrl ? diagramUrl.replace(/\/diagram\.svg$/, "/" + name) : null;
  }

  /** "switches $216K – $300K", largest first; the cost of each kind of part. */
  function costByCategory(cost) {
    return (cost.by_category || []).filter(function (p) { return p.usd_high > 0; })
      .sort(function (a, b) { return b.usd_high - a.usd_high; })
      .map(function (p) { return (CATEGORY_NAMES[p.name] || p.name) + " " + usd(p.usd_low) + " – " + usd(p.usd_high); });
  }

  function costByFabric(cost) {
    return (cost.by_fabric || []).map(function (p) {
      return (FABRIC_NAMES[p.name] || p.name) + " " + usd(p.usd_low) + " – " + usd(p.usd_high) +
        " (" + (p.watts / 1000).toFixed(1) + " kW)";
    });
  }

  function workloadLine(p) {
    var gpu = p.gpu_model ? p.gpu_model + " " : "";
    var model = p.model_params_b ? ", " + p.model_params_b + "B-parameter model" : "";
    return p.workload + " on " + num(p.gpu_count) + " " + gpu + "GPUs (" + plural(p.node_count, "server") +
      " × " + p.gpus_per_node + " GPUs" + model + ")";
  }

  // ----------------------------------------------------------------- DOM helpers

  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "class") node.className = value;
        else if (key === "text") node.textContent = value;
        else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value === true ? "" : value);
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function markdown(text) {
    var html = window.marked ? window.marked.parse(text, { gfm: true, breaks: false }) : null;
    var box = h("div", { class: "md" });
    if (html !== null && window.DOMPurify) {
      box.innerHTML = window.DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
    } else {
      box.textContent = text; // libraries missing: show the words, never raw HTML
    }
    box.querySelectorAll("a[href]").forEach(function (a) {
      a.setAttribute("target", "_blank");
      a.setAttribute("rel", "noopener noreferrer");
    });
    return box;
  }

  /** One line of markdown (a rule's statement): emphasis and code, sanitised. */
  function inlineMarkdown(text) {
    var span = h("span");
    if (window.marked && window.DOMPurify) {
      span.innerHTML = window.DOMPurify.sanitize(window.marked.parseInline(text), { USE_PROFILES: { html: true } });
    } else {
      span.textContent = text;
    }
    return span;
  }

  function scrollToEnd() {
    window.requestAnimationFrame(function () { el.scroller.scrollTop = el.scroller.scrollHeight; });
  }

  // ---------------------------------------------------------------- rendering

  function render(message, index) {
    var node;
    if (message.role === "user") {
      node = h("div", { class: "msg msg--user" }, [
        h("span", { class: "visually-hidden", text: "You said:" }),
        h("div", { class: "bubble bubble--user", text: message.text })
      ]);
    } else if (message.kind === "recommendation") {
      node = h("div", { class: "msg msg--bot msg--card" }, [recommendationCard(message)]);
    } else if (message.kind === "image") {
      node = h("div", { class: "msg msg--bot" }, [
        h("div", { class: "bubble bubble--bot" }, [h("img", { class: "msg__image", src: safeUrl(message.src) || "", alt: message.alt || "Image from the advisor" })])
      ]);
    } else {
      node = h("div", { class: "msg msg--bot" }, [
        h("span", { class: "visually-hidden", text: "Advisor:" }),
        h("div", { class: "bubble bubble--bot" }, [markdown(message.text || "")]),
        quickReplies(message)
      ]);
    }
    node.setAttribute("data-index", String(index));
    return node;
  }

  function quickReplies(message) {
    if (!message.buttons || !message.buttons.length || message.answered) return null;
    var group = h("div", { class: "quick-replies", role: "group", "aria-label": "Suggested answers" });
    message.buttons.forEach(function (button) {
      group.appendChild(h("button", {
        class: "chip chip--reply", type: "button",
        onclick: function () {
          message.answered = true;
          save();
          group.remove();
          send(button.payload, button.title);
        }
      }, [button.title]));
    });
    return group;
  }

  function fact(label, value, field) {
    var dd = h("dd", { "data-field": field });
    (Array.isArray(value) ? value : [value]).forEach(function (part, i) {
      if (i) dd.appendChild(h("br"));
      dd.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
    return h("div", { class: "fact" }, [h("dt", { text: label }), dd]);
  }

  function kpi(label, value, note, field) {
    return h("div", { class: "kpi" }, [
      h("dt", { text: label }),
      h("dd", { "data-field": field }, [h("span", { class: "kpi__value", text: value }), h("span", { class: "kpi__note", text: note })])
    ]);
  }

  function budgetShare(cost) {
    if (cost.budget_share_low === null || cost.budget_share_low === undefined || !cost.budget_share_high) return null;
    return Math.round(cost.budget_share_low * 100) + "–" + Math.round(cost.budget_share_high * 100) + " % of the budget";
  }

  function recommendationCard(message) {
    var rec = message.recommendation;
    var f = rec.fabric, t = rec.topology, perf = rec.performance, cost = rec.cost;
    var title = f.name;

    // headline figures first (KPI tiles), then the details of the design
    var compute = rec.ports_per_server.filter(function (p) { return p.role === "compute" && p.count > 0; })[0];
    var tiles = [
      kpi("Switches", t.kind === "single_node" ? "none" : num(totalSwitches(t)),
        t.kind === "single_node" ? f.name :
          switchTiers(t).map(function (tier) { return num(tier[1]) + " " + tier[0]; }).join(" + "), "switches"),
      kpi("Network cost", costRange(cost.network_usd_low, cost.network_usd_high),
        budgetShare(cost) || "switches, NICs, optics and cables", "cost")
    ];
    if (perf.allreduce_ms !== null && perf.allreduce_ms !== undefined) {
      tiles.push(kpi("All-reduce", "≈ " + duration(perf.allreduce_ms),
        "per gradient sync · " + Math.round(perf.relative_training_throughput * 100) + " % of InfiniBand throughput", "allreduce"));
    } else {
      tiles.push(kpi("Latency", f.latency_us + " µs", "port to port, typical", "latency"));
    }
    tiles.push(kpi("Compute ports / server", compute ? compute.count + " × " + compute.gbps + "G" : "none",
      compute ? plural(rec.profile.node_count, "server") + " × " + rec.profile.gpus_per_node + " GPUs" : f.name, "compute-ports"));

    var details = [
      fact("Fabric", [f.name + (f.switch_model ? " on " + f.switch_model : ""),
        h("span", { class: "muted", text: [f.nic_model ? "NIC " + f.nic_model : null, "latency " + f.latency_us + " µs"].filter(Boolean).join(" · ") })], "fabric"),
      fact("Topology", topologyLine(t), "topology"),
      fact("Ports per server", portsLines(rec.ports_per_server).length ? portsLines(rec.ports_per_server) : "none", "ports"),
      fact("Cables", cablesLine(t), "cables")
    ];
    if (costByCategory(cost).length) {
      details.push(fact("Cost by category", costByCategory(cost), "cost-categories"));
      details.push(fact("Cost by network", costByFabric(cost), "cost-networks"));
    }

    var card = h("article", { class: "card", "aria-label": "Recommendation: " + title, "data-recommendation-id": rec.id || "" }, [
      h("header", { class: "card__head" }, [
        h("p", { class: "card__eyebrow", text: "Recommended network" }),
        h("h3", { class: "card__title", text: title }),
        h("p", { class: "card__subtitle", text: "For " + workloadLine(rec.profile) })
      ]),
      h("dl", { class: "card__kpis" }, tiles),
      h("dl", { class: "card__facts" }, details)
    ]);

    message.diagramUrl = safeUrl(message.diagramUrl);
    if (message.diagramUrl) {
      var img = h("img", {
        class: "card__diagram-img", src: message.diagramUrl, "data-field": "diagram",
        alt: "Topology diagram: " + topologyLine(t) + ", " + (t.kind === "single_node" ? "no switches" : num(totalSwitches(t)) + " switches")
      });
      var figure = h("figure", { class: "card__diagram" }, [
        h("a", { href: message.diagramUrl, target: "_blank", rel: "noopener noreferrer", "aria-label": "Open the topology diagram in a new tab" }, [img]),
        h("figcaption", {}, ["Topology diagram · ", h("a", { href: message.diagramUrl, target: "_blank", rel: "noopener noreferrer", text: "open full size" })])
      ]);
      img.addEventListener("load", function () {
        // the diagram changes the card's height: keep the card's top in view if it is the latest message
        var node = figure.closest(".msg");
        if (node && node === el.log.lastElementChild) el.scroller.scrollTop = node.offsetTop - 12;
      });
      img.addEventListener("error", function () {
        figure.classList.add("card__diagram--missing");
        img.replaceWith(h("p", { class: "muted", text: "The diagram could not be loaded." }));
      });
      card.appendChild(figure);
    }

    if (rec.explanation && rec.explanation.length) {
      var shown = rec.explanation.slice(0, 4), rest = rec.explanation.slice(4);
      var why = h("section", { class: "card__why", "aria-label": "Why this design" }, [
        h("h4", { text: "Why" }), reasonList(shown, 1)
      ]);
      if (rest.length) {
        why.appendChild(h("details", { class: "more" }, [
          h("summary", { text: "All " + rec.explanation.length + " rules" }), reasonList(rest, 5)
        ]));
      }
      card.appendChild(why);
    }

    if (rec.warnings && rec.warnings.length) {
      card.appendChild(h("ul", { class: "card__warnings", "aria-label": "Things to check" },
        rec.warnings.map(function (w) { return h("li", {}, [h("strong", { text: "Check: " }), w]); })));
    }

    if (rec.roce_configuration && rec.roce_configuration.length) {
      card.appendChild(h("details", { class: "more" }, [
        h("summary", { text: "RoCE configuration (" + rec.roce_configuration.length + " settings)" }),
        h("dl", { class: "settings" }, rec.roce_configuration.map(function (s) {
          return h("div", {}, [h("dt", { text: s.setting }), h("dd", {}, [s.value, h("span", { class: "source", text: s.why + " Source: " + s.source })])]);
        }))
      ]));
    }

    if (rec.alternatives && rec.alternatives.length) {
      var rows = rec.alternatives.map(function (a) {
        return h("tr", {}, [
          h("th", { scope: "row", text: a.name }),
          h("td", { text: costRange(a.network_usd_low, a.network_usd_high) }),
          h("td", { text: Math.round(a.relative_training_throughput * 100) + " %" }),
          h("td", { text: a.trade_off })
        ]);
      });
      card.appendChild(h("details", { class: "more" }, [
        h("summary", { text: "Also considered (" + rec.alternatives.length + ")" }),
        h("div", { class: "table-wrap" }, [h("table", { class: "alts" }, [
          h("thead", {}, [h("tr", {}, [h("th", { scope: "col", text: "Fabric" }), h("th", { scope: "col", text: "Network cost" }),
            h("th", { scope: "col", text: "Training throughput" }), h("th", { scope: "col", text: "Trade-off" })])]),
          h("tbody", {}, rows)
        ])])
      ]));
    }

    var reportUrl = siblingUrl(message.diagramUrl, "report"), csvUrl = siblingUrl(message.diagramUrl, "bom.csv");
    card.appendChild(h("footer", { class: "card__foot" }, [
      rec.id ? h("span", { class: "card__id" }, ["Recommendation ", h("code", { text: rec.id })]) : null,
      reportUrl ? h("span", { class: "card__links" }, [
        h("a", { href: reportUrl, target: "_blank", rel: "noopener noreferrer", "data-field": "report", text: "Printable report" }),
        " · ",
        h("a", { href: csvUrl, download: "", "data-field": "bom-csv", text: "Bill of materials (CSV)" })
      ]) : null,
      h("span", { class: "card__actions" }, [
        h("button", { class: "chip", type: "button", onclick: function () { send("why?"); } }, ["Why? (all rules)"]),
        h("button", { class: "chip", type: "button", onclick: function () { send("compare"); } }, ["Compare fabrics"])
      ])
    ]));
    return card;
  }

  function reasonList(reasons, start) {
    return h("ol", { class: "reasons", start: String(start) }, reasons.map(function (r) {
      return h("li", { "data-rule": r.rule_id }, [
        h("p", { class: "reason__text" }, [inlineMarkdown(r.statement)]),
        h("p", { class: "source" }, [h("span", { class: "source__label", text: "Source: " }), r.source,
          h("code", { class: "rule-id", text: r.rule_id })])
      ]);
    }));
  }

  function redraw() {
    el.log.textContent = "";
    state.messages.forEach(function (m, i) { el.log.appendChild(render(m, i)); });
    el.welcome.hidden = state.messages.length > 0;
    scrollToEnd();
  }

  function append(message) {
    state.messages.push(message);
    save();
    el.welcome.hidden = true;
    var node = render(message, state.messages.length - 1);
    el.log.appendChild(node);
    if (message.kind === "recommendation") {
      // a card is taller than the view: show its top, the fabric, rather than its end
      window.requestAnimationFrame(function () { el.scroller.scrollTop = node.offsetTop - 12; });
    } else {
      scrollToEnd();
    }
  }

  /** A bot text part: joined to the previous part of the same reply, else a new message. */
  function appendBotText(text, buttons) {
    var last = state.messages[state.messages.length - 1];
    var now = Date.now();
    if (last && last.role === "bot" && last.kind === "text" && !(last.buttons && last.buttons.length) &&
        now - (last.at || 0) < JOIN_WINDOW_MS) {
      last.text = last.text + "\n\n" + text;
      last.at = now;
      if (buttons && buttons.length) last.buttons = buttons;
      save();
      var index = state.messages.length - 1;
      var old = el.log.querySelector('[data-index="' + index + '"]');
      var fresh = render(last, index);
      if (old) old.replaceWith(fresh); else el.log.appendChild(fresh);
      scrollToEnd();
      return;
    }
    append({ role: "bot", kind: "text", text: text, buttons: buttons || [], at: now });
  }

  // ----------------------------------------------------------------- talking

  function setStatus(stateName, text) {
    el.status.setAttribute("data-state", stateName);
    el.status.querySelector(".status__text").textContent = text;
  }

  function showTyping(on) {
    el.typing.hidden = !on;
    window.clearTimeout(typingTimer);
    if (on) {
      typingTimer = window.setTimeout(function () { el.typing.hidden = true; }, TYPING_TIMEOUT_MS);
      scrollToEnd();
    }
  }

  function send(payload, shown) {
    var text = String(payload || "").trim();
    if (!text) return;
    // quick replies from a previous turn are answered by typing, too
    state.messages.forEach(function (m) { if (m.buttons && m.buttons.length) m.answered = true; });
    el.log.querySelectorAll(".quick-replies").forEach(function (g) { g.remove(); });
    append({ role: "user", text: shown || text, at: Date.now() });
    showTyping(true);
    var message = { message: text };
    if (confirmed && socket) emit(message); else outbox.push(message);
  }

  function emit(message) {
    message.session_id = state.sessionId;
    socket.emit("user_uttered", message);
  }

  function onBotUttered(data) {
    if (!data || typeof data !== "object") return;
    showTyping(false);
    var custom = data.recommendation ? data : (data.custom || data.data || null);
    if (custom && custom.recommendation) {
      append({ role: "bot", kind: "recommendation", recommendation: custom.recommendation, diagramUrl: safeUrl(custom.diagram_url), at: Date.now() });
    }
    var buttons = (data.quick_replies || data.buttons || []).map(function (b) {
      return { title: String(b.title), payload: String(b.payload) };
    });
    if (typeof data.text === "string" && data.text.trim()) appendBotText(data.text, buttons);
    var attachment = data.attachment;
    var src = attachment && attachment.type === "image" && attachment.payload ? safeUrl(attachment.payload.src) : null;
    if (src) {
      append({ role: "bot", kind: "image", src: src, at: Date.now() });
    }
  }

  function connect() {
    if (!window.io) {
      setStatus("offline", "Chat library missing");
      return;
    }
    socket = window.io(rasaUrl(), {
      path: "/socket.io",
      transports: ["websocket", "polling"],
      reconnectionDelayMax: 5000
    });
    socket.on("connect", function () {
      confirmed = false;
      setStatus("connecting", "Starting session…");
      requestSession();
    });
    socket.on("session_refused", function () {
      // an id from before the server issued them, or from another deployment: get a new one
      state.sessionId = null;
      save();
      refusals += 1;
    });
    socket.on("session_confirm", function (data) {
      var id = typeof data === "string" ? data : (data && data.session_id);
      if (id) state.sessionId = id;
      save();
      confirmed = true;
      refusals = 0;
      setStatus("online", "Online");
      while (outbox.length) emit(outbox.shift());
    });
    socket.on("bot_uttered", onBotUttered);
    socket.on("disconnect", function (reason) {
      confirmed = false;
      setStatus("offline", "Reconnecting…");
      // the server ends a refused session; reconnect with a new id (a few times at most)
      if (reason === "io server disconnect" && refusals > 0 && refusals <= 3) socket.connect();
    });
    socket.on("connect_error", function () {
      setStatus("offline", "Advisor unreachable, retrying…");
    });
  }

  /** A session id from the API (which signs it), then Rasa's session_request with it. */
  function requestSession() {
    if (state.sessionId) {
      socket.emit("session_request", { session_id: state.sessionId });
      return;
    }
    fetch("/v1/chat/sessions", { method: "POST", headers: { "Accept": "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (body) {
        state.sessionId = String(body.session_id || "");
        save();
        if (socket && socket.connected) socket.emit("session_request", { session_id: state.sessionId });
      })
      .catch(function () { setStatus("offline", "Could not start a chat session, retrying…"); setTimeout(function () { if (socket && socket.connected && !confirmed) requestSession(); }, 3000); });
  }

  function reset() {
    state = { sessionId: null, messages: [] };
    save();
    outbox = [];
    showTyping(false);
    redraw();
    if (socket) {
      confirmed = false;
      refusals = 0;
      // a new conversation: a new socket, so the old session's room is left behind
      socket.disconnect();
      socket.connect();
    }
    el.input.focus();
  }

  // --------------------------------------------------------------------- start

  function autosize() {
    el.input.style.height = "auto";
    el.input.style.height = Math.min(el.input.scrollHeight, 160) + "px";
  }

  function start() {
    el.scroller = document.getElementById("scroller");
    el.log = document.getElementById("log");
    el.welcome = document.getElementById("welcome");
    el.typing = document.getElementById("typing");
    el.status = document.getElementById("status");
    el.form = document.getElementById("composer");
    el.input = document.getElementById("message");

    el.form.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = el.input.value;
      el.input.value = "";
      autosize();
      send(text);
    });
    el.input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        el.form.requestSubmit();
      }
    });
    el.input.addEventListener("input", autosize);
    document.getElementById("reset").addEventListener("click", reset);
    document.querySelectorAll("[data-say]").forEach(function (chip) {
      chip.addEventListener("click", function () { send(chip.getAttribute("data-say")); });
    });

    redraw();
    connect();
    el.input.focus();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
