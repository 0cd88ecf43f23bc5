// The guest's console and value formatting. Evaluated once per instance; the
// returned helpers stay private to the guest's Rust side.
(function install(write) {
  "use strict";
  const STDOUT = 1, STDERR = 2;
  // Bytes each stream may still take in this run, -1 once the host has cut it
  // (the host enforces the cap; this only keeps the guest from formatting
  // text that would be dropped).
  let budget = [0, Infinity, Infinity];

  const isIdent = (k) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k);
  const quote = (s) => {
    const q = !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes("`") ? "`" : "'";
    const esc = s.replace(/[\\\n\r\t\b\f\v\0]/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\0": "\\0" })[c]);
    return q + (q === "'" && s.includes("'") ? esc.replace(/'/g, "\\'") : esc) + q;
  };

  function errorText(e) {
    let name, message, stack;
    try { name = String(e.name); } catch { name = "Error"; }
    try { message = String(e.message); } catch { message = ""; }
    try { stack = typeof e.stack === "string" ? e.stack : ""; } catch { stack = ""; }
    const head = message ? `${name}: ${message}` : name;
    const frames = stack.split("\n").filter((l) => /^\s+at /.test(l)).join("\n");
    return frames ? `${head}\n${frames}` : head;
  }

  function fnText(f) {
    let src = "";
    try { src = Function.prototype.toString.call(f); } catch {}
    const name = f.name ? String(f.name) : "";
    if (/^class\b/.test(src)) return name ? `[class ${name}]` : "[class (anonymous)]";
    return name ? `[Function: ${name}]` : "[Function (anonymous)]";
  }

  // Node's util.inspect for plain data: one line while it fits in 80
  // columns, two-space indentation otherwise; depth 2; circular references
  // marked.
  function inspect(value, depth = 0, seen = [], indent = 0) {
    switch (typeof value) {
      case "string": return depth === 0 ? value : quote(value);
      case "number": return Object.is(value, -0) ? "-0" : String(value);
      case "bigint": return `${value}n`;
      case "boolean": case "undefined": return String(value);
      case "symbol": return value.toString();
      case "function": return fnText(value);
    }
    if (value === null) return "null";
    if (seen.includes(value)) return "[Circular *1]";
    if (value instanceof Error) return errorText(value);
    if (value instanceof Date) return isNaN(value) ? "Invalid Date" : value.toISOString();
    if (value instanceof RegExp) return String(value);
    if (value instanceof Promise) return "Promise { <pending> }";
    const top = depth === 0 ? "" : "";
    const inner = seen.concat([value]);
    const sub = (v) => inspect(v, depth + 1, inner, indent + 2);
    let open, close, entries, prefix = "";
    if (Array.isArray(value)) {
      if (depth > 2) return "[Array]";
      open = "["; close = "]";
      entries = [];
      const n = Math.min(value.length, 100);
      let holes = 0;
      for (let i = 0; i < n; i++) {
        if (!(i in value)) { holes++; continue; }
        if (holes) { entries.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`); holes = 0; }
        entries.push(sub(value[i]));
      }
      if (holes) entries.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`);
      if (value.length > 100) entries.push(`... ${value.length - 100} more item${value.length - 100 > 1 ? "s" : ""}`);
    } else if (value instanceof Map) {
      if (depth > 2) return "[Map]";
      prefix = `Map(${value.size}) `; open = "{"; close = "}";
      entries = [...value].map(([k, v]) => `${sub(k)} => ${sub(v)}`);
    } else if (value instanceof Set) {
      if (depth > 2) return "[Set]";
      prefix = `Set(${value.size}) `; open = "{"; close = "}";
      entries = [...value].map(sub);
    } else {
      const proto = Object.getPrototypeOf(value);
      let ctor = "";
      try { ctor = proto === null ? "[Object: null prototype]" : proto.constructor && proto.constructor !== Object ? String(proto.constructor.name) : ""; } catch {}
      if (depth > 2) return ctor && !ctor.startsWith("[") ? `[${ctor}]` : "[Object]";
      prefix = ctor ? `${ctor} ` : ""; open = "{"; close = "}";
      entries = Object.keys(value).map((k) => {
        let v;
        try { v = value[k]; } catch (e) { v = e; }
        return `${isIdent(k) ? k : quote(k)}: ${sub(v)}`;
      });
    }
    void top;
    if (entries.length === 0) return `${prefix}${open}${close}`;
    const oneLine = `${prefix}${open} ${entries.join(", ")} ${close}`;
    if (oneLine.length + indent <= 80 && !oneLine.includes("\n")) return oneLine;
    const pad = " ".repeat(indent + 2);
    return `${prefix}${open}\n${pad}${entries.join(`,\n${pad}`)}\n${" ".repeat(indent)}${close}`;
  }

  // printf-style substitutions of the first argument, as Node's console does.
  function format(args) {
    let out = [];
    let rest = args;
    if (typeof args[0] === "string" && args.length > 1 && args[0].includes("%")) {
      let i = 1;
      const head = args[0].replace(/%([sdifjoOc%])/g, (m, c) => {
        if (c === "%") return "%";
        if (i >= args.length) return m;
        const a = args[i++];
        switch (c) {
          case "s": return typeof a === "string" ? a : inspect(a, 1);
          case "d": case "i": { const n = typeof a === "bigint" ? a : Number(a); return typeof n === "bigint" ? `${n}n` : String(c === "i" ? Math.trunc(n) : n); }
          case "f": return String(Number(a));
          case "j": try { return JSON.stringify(a); } catch { return "[Circular]"; }
          case "c": return "";
          default: return inspect(a, 1);
        }
      });
      out.push(head);
      rest = args.slice(i);
    } else {
      out.push(args.length ? inspect(args[0]) : "");
      rest = args.slice(1);
    }
    for (const a of rest) out.push(inspect(a));
    return out.join(" ");
  }

  function emit(stream, args) {
    // -1: the host has cut the stream; nothing more is kept.
    if (budget[stream] < 0) return;
    // Cut huge strings before formatting: the host would drop the excess.
    const cap = budget[stream] + 1;
    const cut = args.map((a) => (typeof a === "string" && a.length > cap ? a.slice(0, cap) : a));
    let text = format(cut) + "\n";
    if (text.length > cap) text = text.slice(0, cap);
    budget[stream] = write(stream, text.toWellFormed());
  }

  const console = {
    log: (...a) => emit(STDOUT, a),
    info: (...a) => emit(STDOUT, a),
    debug: (...a) => emit(STDOUT, a),
    warn: (...a) => emit(STDERR, a),
    error: (...a) => emit(STDERR, a),
  };
  Object.defineProperty(globalThis, "console", { value: console, writable: true, configurable: true, enumerable: false });

  return {
    setBudget(n) { budget = [0, n, n]; },
    // The top-level return value: strings as they are, anything else as JSON
    // (falling back to inspect for what JSON cannot express); also printed.
    render(value) {
      if (value === undefined) return undefined;
      let text;
      if (typeof value === "string") text = value;
      else {
        try { text = JSON.stringify(value); } catch { text = undefined; }
        if (text === undefined) text = inspect(value);
      }
      emit(STDOUT, [text]);
      return text.toWellFormed();
    },
    // [name, message, stack, printed] of an uncaught exception.
    describe(e) {
      if (e !== null && typeof e === "object" && e instanceof Error) {
        let name = "Error", message = "", stack = "";
        try { name = String(e.name); } catch {}
        try { message = String(e.message); } catch {}
        try { stack = typeof e.stack === "string" ? e.stack : ""; } catch {}
        const printed = `Uncaught ${errorText(e)}\n`;
        return [name.toWellFormed(), message.toWellFormed(), stack.toWellFormed(), printed.toWellFormed()];
      }
      let shown;
      try { shown = inspect(e, 1); } catch { shown = "exception"; }
      return ["Error", `Uncaught ${shown}`.toWellFormed(), "", `Uncaught ${shown}\n`.toWellFormed()];
    },
  };
})
