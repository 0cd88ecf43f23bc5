
  // ---- the rest of Node's console ----------------------------------------
  // table, group, count, time, assert, dir, formatted as Node 24 formats
  // them. A warning Node would print as a process warning goes to stderr as
  // "Warning: …".

  const warning = (text) => emit(STDERR, ["Warning: " + text]);

  // A cell of console.table: util.inspect at depth 0 (an object with more
  // than two keys at depth -1), at most three array items.
  function cell(v, depth) {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return inspect(v, 1);
    if (typeof v === "function") return fnText(v);
    if (ArrayIsArray(v)) {
      if (depth > 0) return "[Array]";
      const shown = [];
      for (let i = 0; i < MathMin(v.length, 3); i++) ArrayPrototypePush(shown, cell(v[i], depth + 1));
      if (v.length > 3) ArrayPrototypePush(shown, "... " + items(v.length - 3, "more item"));
      return shown.length ? "[ " + ArrayPrototypeJoin(shown, ", ") + " ]" : "[]";
    }
    const plain = ObjectGetPrototypeOf(v) === ObjectPrototype || ObjectGetPrototypeOf(v) === null;
    if (!plain) return depth > 0 ? "[" + toStr(nameOf(constructorOf(ObjectGetPrototypeOf(v)))) + "]" : inspect(v, 1);
    const keys = ObjectKeys(v);
    if (depth > 0 || keys.length > 2) return "[Object]";
    const shown = [];
    for (let i = 0; i < keys.length; i++) ArrayPrototypePush(shown, (isIdent(keys[i]) ? keys[i] : quote(keys[i])) + ": " + cell(v[keys[i]], depth + 1));
    return shown.length ? "{ " + ArrayPrototypeJoin(shown, ", ") + " }" : "{}";
  }

  // Columns a string takes in a terminal: 2 for East Asian wide and
  // fullwidth characters (and the emoji blocks), 0 for controls and
  // combining marks, else 1.
  function columns(text) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = StringPrototypeCodePointAt(text, i);
      if (c > 0xffff) i++;
      if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) ||
        (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xfe20 && c <= 0xfe2f) || (c >= 0xe0100 && c <= 0xe01ef)) continue;
      const wide = c >= 0x1100 && (c <= 0x115f || c === 0x2329 || c === 0x232a ||
        (c >= 0x2e80 && c <= 0x3247 && c !== 0x303f) || (c >= 0x3250 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0xa4c6) ||
        (c >= 0xa960 && c <= 0xa97c) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
        (c >= 0xfe10 && c <= 0xfe19) || (c >= 0xfe30 && c <= 0xfe6b) || (c >= 0xff01 && c <= 0xff60) ||
        (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1b000 && c <= 0x1b001) || (c >= 0x1f200 && c <= 0x1f251) ||
        (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x20000 && c <= 0x3fffd));
      n += wide ? 2 : 1;
    }
    return n;
  }

  function renderTable(head, rows) {
    const widths = [];
    for (let c = 0; c < head.length; c++) {
      let w = columns(head[c]);
      for (let r = 0; r < rows.length; r++) w = MathMax(w, columns(rows[r][c] || ""));
      ArrayPrototypePush(widths, w + 2);
    }
    const line = (l, m, r) => {
      const parts = [];
      for (let c = 0; c < widths.length; c++) ArrayPrototypePush(parts, StringPrototypeRepeat("─", widths[c]));
      return l + ArrayPrototypeJoin(parts, m) + r;
    };
    const row = (cells) => {
      const parts = [];
      for (let c = 0; c < widths.length; c++) {
        const text = cells[c] || "";
        ArrayPrototypePush(parts, " " + text + StringPrototypeRepeat(" ", widths[c] - 1 - columns(text)));
      }
      return "│" + ArrayPrototypeJoin(parts, "│") + "│";
    };
    const out = [line("┌", "┬", "┐"), row(head), line("├", "┼", "┤")];
    for (let r = 0; r < rows.length; r++) ArrayPrototypePush(out, row(rows[r]));
    ArrayPrototypePush(out, line("└", "┴", "┘"));
    return ArrayPrototypeJoin(out, "\n");
  }

  function table(data, properties) {
    if (data === null || typeof data !== "object") return emit(STDOUT, [data]);
    const only = ArrayIsArray(properties) ? copyOf(properties) : undefined;
    if (isA(data, MapPrototype) || isA(data, SetPrototype)) {
      const isMap = isA(data, MapPrototype);
      const rows = [];
      let i = 0;
      const add = (v, k) => {
        ArrayPrototypePush(rows, isMap ? [toStr(i), cell(k, 0), cell(v, 0)] : [toStr(i), cell(v, 0)]);
        i++;
      };
      if (isMap) MapPrototypeForEach(data, add);
      else SetPrototypeForEach(data, add);
      return emit(STDOUT, [renderTable(isMap ? ["(iteration index)", "Key", "Values"] : ["(iteration index)", "Values"], rows)]);
    }
    const columns = only || [];
    const known = new Map();
    for (let c = 0; c < columns.length; c++) MapPrototypeSet(known, columns[c], c);
    const indexes = ObjectKeys(data);
    const rows = [];
    let values = false;
    for (let r = 0; r < indexes.length; r++) {
      const v = data[indexes[r]];
      const cells = { __proto__: null };
      if (v !== null && typeof v === "object") {
        const keys = ObjectKeys(v);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k];
          if (!MapPrototypeHas(known, key)) {
            if (only) continue;
            MapPrototypeSet(known, key, columns.length);
            ArrayPrototypePush(columns, key);
          }
          cells[key] = cell(v[key], 0);
        }
        ArrayPrototypePush(rows, [indexes[r], cells, undefined]);
      } else {
        values = true;
        ArrayPrototypePush(rows, [indexes[r], cells, cell(v, 0)]);
      }
    }
    const head = ["(index)"];
    for (let c = 0; c < columns.length; c++) ArrayPrototypePush(head, toStr(columns[c]));
    if (values) ArrayPrototypePush(head, "Values");
    const out = [];
    for (let r = 0; r < rows.length; r++) {
      const line = [rows[r][0]];
      for (let c = 0; c < columns.length; c++) ArrayPrototypePush(line, rows[r][1][columns[c]]);
      if (values) ArrayPrototypePush(line, rows[r][2]);
      ArrayPrototypePush(out, line);
    }
    emit(STDOUT, [renderTable(head, out)]);
  }

  const counts = new Map();
  const timersByLabel = new Map();
  // Node's formatTime: milliseconds to 3 decimals, or seconds, minutes, hours.
  function elapsed(ms) {
    const fixed = (n) => toStr(Number(NumberPrototypeToFixed(n, 3)));
    if (ms >= 3600000) return fixed(ms / 3600000) + "h";
    if (ms >= 60000) return fixed(ms / 60000) + "min";
    if (ms >= 1000) return fixed(ms / 1000) + "s";
    return fixed(ms) + "ms";
  }
  const label = (l) => (l === undefined ? "default" : toStr(l));
  const extra = {
    table,
    group(...a) {
      if (a.length) emit(STDOUT, a);
      groupIndent += "  ";
    },
    groupCollapsed(...a) {
      if (a.length) emit(STDOUT, a);
      groupIndent += "  ";
    },
    groupEnd() {
      groupIndent = StringPrototypeSlice(groupIndent, 0, MathMax(0, groupIndent.length - 2));
    },
    count(l) {
      const key = label(l);
      const n = (MapPrototypeGet(counts, key) || 0) + 1;
      MapPrototypeSet(counts, key, n);
      emit(STDOUT, [key + ": " + n]);
    },
    countReset(l) {
      const key = label(l);
      if (MapPrototypeHas(counts, key)) MapPrototypeSet(counts, key, 0);
      else warning("Count for '" + key + "' does not exist");
    },
    time(l) {
      const key = label(l);
      if (MapPrototypeHas(timersByLabel, key)) return warning("Label '" + key + "' already exists for console.time()");
      MapPrototypeSet(timersByLabel, key, performance.now());
    },
    timeEnd(l) {
      const key = label(l);
      if (!MapPrototypeHas(timersByLabel, key)) return warning("No such label '" + key + "' for console.timeEnd()");
      const ms = performance.now() - MapPrototypeGet(timersByLabel, key);
      MapPrototypeDelete(timersByLabel, key);
      emit(STDOUT, [key + ": " + elapsed(ms)]);
    },
    timeLog(l, ...a) {
      const key = label(l);
      if (!MapPrototypeHas(timersByLabel, key)) return warning("No such label '" + key + "' for console.timeLog()");
      const ms = performance.now() - MapPrototypeGet(timersByLabel, key);
      const args = [key + ": " + elapsed(ms)];
      for (let i = 0; i < a.length; i++) ArrayPrototypePush(args, a[i]);
      emit(STDOUT, args);
    },
    assert(ok, ...a) {
      if (ok) return;
      // A string message is prefixed; anything else follows the words.
      if (a.length && typeof a[0] === "string") a[0] = "Assertion failed: " + a[0];
      else ArrayPrototypeSplice(a, 0, 0, "Assertion failed");
      emit(STDERR, a);
    },
    dir(v, options) {
      const depth = options !== null && typeof options === "object" ? options.depth : undefined;
      const before = inspectDepth;
      if (depth === null || depth === Infinity) inspectDepth = Infinity;
      else if (typeof depth === "number") inspectDepth = depth;
      try {
        emit(STDOUT, [typeof v === "string" ? quote(v) : inspect(v)]);
      } finally {
        inspectDepth = before;
      }
    },
  };
  const extraNames = ObjectKeys(extra);
  for (let i = 0; i < extraNames.length; i++) hidden(console, extraNames[i], extra[extraNames[i]]);
