// The guest's console, tool bindings, timers and value formatting. Evaluated
// once per instance; the returned helpers stay private to the guest's Rust
// side. `write(stream, text)`, `call(name, argsJson)`, `fsop(requestJson,
// data, asText)` and `random(n)` reach the host; `shellop(script)` runs the
// shell in the same sandbox and returns [stdout, stderr, status].
(function install(write, call, fsop, random, shellop) {
  "use strict";
  // Intrinsics captured before any script can replace them.
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const dateNow = Date.now;
  const defineProperty = Object.defineProperty;
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
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const name = Object.getPrototypeOf(value).constructor.name;
      const items = Array.from(value.length > 100 ? value.subarray(0, 100) : value, (v) => inspect(v, depth + 1));
      if (value.length > 100) items.push(`... ${value.length - 100} more item${value.length - 100 > 1 ? "s" : ""}`);
      return items.length ? `${name}(${value.length}) [ ${items.join(", ")} ]` : `${name}(0) []`;
    }
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
          case "j": try { return jsonStringify(a); } catch { return "[Circular]"; }
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
  const hidden = (target, name, value) =>
    defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  hidden(globalThis, "console", console);

  // ---- tools -------------------------------------------------------------

  /** A tool call that was refused or failed; `code` is stable. */
  class ToolError extends Error {
    constructor(message, code, reason, tool) {
      super(message);
      // Raised from a host result, not from a line of the script.
      this.stack = "";
      this.name = "ToolError";
      this.code = code;
      if (reason) this.reason = reason;
      if (tool) this.tool = tool;
    }
  }

  const pending = new Map(); // id -> { resolve, reject, name }
  const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

  function callTool(name, args, extra) {
    if (typeof name !== "string") {
      return Promise.reject(new TypeError(`invalid tool name: a tool name must be a string, got ${kindOf(name)}`));
    }
    if (extra) {
      return Promise.reject(
        new TypeError(`${name} takes one object argument, like ${name}({ key: value }), not positional arguments`),
      );
    }
    let text;
    try {
      text = jsonStringify(args === undefined ? {} : args);
    } catch (e) {
      return Promise.reject(new TypeError(`${name}: the arguments must be JSON data (${e && e.message})`));
    }
    if (typeof text !== "string") {
      return Promise.reject(new TypeError(`${name} takes one object argument, like ${name}({ key: value })`));
    }
    return started(name, text);
  }

  function started(name, text) {
    const id = call(name, text);
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject, name }));
  }

  // Sends JSON text exactly as given: the host parses and checks it.
  function callRaw(name, text) {
    if (typeof name !== "string") {
      return Promise.reject(new TypeError(`invalid tool name: a tool name must be a string, got ${kindOf(name)}`));
    }
    if (typeof text !== "string") {
      return Promise.reject(new TypeError(`${name}: tools.callRaw takes the arguments as JSON text`));
    }
    return started(name, text);
  }

  const namespaces = new WeakSet();
  const bound = new WeakSet();
  // Binds `a.b.c` as globalThis.a.b.c(args); a name that would replace
  // something the script environment already has stays reachable through
  // tools.call only.
  function bind(name) {
    const parts = name.split(".");
    const last = parts.pop();
    let target = globalThis;
    for (const part of parts) {
      let next = Object.prototype.hasOwnProperty.call(target, part) ? target[part] : undefined;
      if (next === undefined) {
        next = {};
        namespaces.add(next);
        hidden(target, part, next);
      } else if (!namespaces.has(next)) {
        return;
      }
      target = next;
    }
    if (Object.prototype.hasOwnProperty.call(target, last) && !bound.has(target[last])) return;
    const fn = { [last](...a) { return callTool(name, a[0], a.length > 1); } }[last];
    bound.add(fn);
    hidden(target, last, fn);
  }

  const tools = {
    /** Calls a tool by its name (`"stripe.charges.create"` or `"stripe/charges/create"`). */
    call: (...a) => callTool(a[0], a[1], a.length > 2),
    /** Calls a tool with arguments given as JSON text, passed to the host unchanged. */
    callRaw: (name, json) => callRaw(name, json),
    /** The registered tool names. */
    list: () => [...registered],
    ToolError,
  };
  let registered = [];
  hidden(globalThis, "tools", tools);

  // ---- fs ----------------------------------------------------------------
  // Node's fs for the sandbox's file system: synchronous functions
  // (`readFileSync`, ...), promise versions under the plain names and
  // `fs.promises`. Paths are relative to /workspace unless absolute.

  class FsError extends Error {
    constructor(message, code, syscall, path) {
      super(message);
      this.stack = "";
      this.name = "Error";
      this.code = code;
      this.syscall = syscall;
      this.path = path;
    }
  }

  function fsCall(syscall, request, data, asText) {
    const path = request.op === "cwd" ? "." : request.path ?? request.from;
    if (typeof path !== "string" || (request.to !== undefined && typeof request.to !== "string")) {
      throw new TypeError(`The "path" argument must be of type string. Received ${kindOf(path)}`);
    }
    const [json, payload] = fsop(jsonStringify(request), data, asText === true);
    const reply = jsonParse(json);
    if (reply.errno) {
      // "CODE: description (detail), 'path'" becomes Node's "…, syscall 'path'".
      const msg = reply.message;
      const at = msg.lastIndexOf(", '");
      const text = at < 0 ? msg : `${msg.slice(0, at)}, ${syscall} ${msg.slice(at + 2)}`;
      throw new FsError(text, reply.errno, syscall, path);
    }
    return [reply, payload];
  }
  const encodingOf = (options) =>
    typeof options === "string" ? options : options && typeof options === "object" ? options.encoding : undefined;
  const isText = (enc) => enc === "utf8" || enc === "utf-8";
  function toData(data) {
    if (typeof data === "string") return data;
    if (data instanceof Uint8Array) return data;
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    throw new TypeError(`The "data" argument must be a string or a Uint8Array. Received ${kindOf(data)}`);
  }
  function stats(st) {
    const isDir = st.kind === "dir";
    return {
      size: st.size,
      mtimeMs: st.mtime_ms,
      mtime: new Date(st.mtime_ms),
      isFile: () => !isDir,
      isDirectory: () => isDir,
      isSymbolicLink: () => false,
    };
  }
  const sync = {
    readFileSync(path, options) {
      const enc = encodingOf(options);
      if (enc !== undefined && enc !== null && !isText(enc)) throw new TypeError(`unsupported encoding ${String(enc)}; use "utf8" or none`);
      return fsCall("open", { op: "read", path }, undefined, isText(enc))[1];
    },
    writeFileSync(path, data, options) {
      const flag = options && typeof options === "object" ? options.flag : undefined;
      const mode = flag === "a" ? "append" : flag === "wx" ? "create_new" : "truncate";
      fsCall("open", { op: "write", path, mode }, toData(data));
    },
    appendFileSync(path, data) {
      fsCall("open", { op: "write", path, mode: "append" }, toData(data));
    },
    mkdirSync(path, options) {
      fsCall("mkdir", { op: "mkdir", path, recursive: !!(options && options.recursive) });
    },
    readdirSync(path, options) {
      const entries = fsCall("scandir", { op: "readdir", path })[0].entries;
      if (options && options.withFileTypes) {
        return entries.map((e) => ({ name: e.name, isFile: () => e.kind === "file", isDirectory: () => e.kind === "dir" }));
      }
      return entries.map((e) => e.name);
    },
    statSync(path) {
      return stats(fsCall("stat", { op: "stat", path })[0].stat);
    },
    existsSync(path) {
      try {
        fsCall("stat", { op: "stat", path });
        return true;
      } catch {
        return false;
      }
    },
    rmSync(path, options) {
      try {
        fsCall("rm", { op: "remove", path, recursive: !!(options && options.recursive) });
      } catch (e) {
        if (!(options && options.force && e.code === "ENOENT")) throw e;
      }
    },
    unlinkSync(path) {
      const st = fsCall("stat", { op: "stat", path })[0].stat;
      if (st.kind === "dir") throw new FsError(`EISDIR: is a directory, unlink '${path}'`, "EISDIR", "unlink", path);
      fsCall("unlink", { op: "remove", path, recursive: false });
    },
    rmdirSync(path) {
      const st = fsCall("stat", { op: "stat", path })[0].stat;
      if (st.kind !== "dir") throw new FsError(`ENOTDIR: not a directory, rmdir '${path}'`, "ENOTDIR", "rmdir", path);
      fsCall("rmdir", { op: "remove", path, recursive: false });
    },
    renameSync(from, to) {
      fsCall("rename", { op: "rename", from, to });
    },
  };
  const promises = {};
  for (const [name, fn] of Object.entries(sync)) {
    if (name === "existsSync") continue;
    const plain = name.slice(0, -4);
    promises[plain] = async (...a) => fn(...a);
  }
  const fs = { ...sync, ...promises, promises };
  hidden(globalThis, "fs", fs);
  // The working directory of guest code (shared with the shell later).
  hidden(globalThis, "process", {
    cwd: () => fsCall("cwd", { op: "cwd" })[0].cwd,
    chdir: (path) => void fsCall("chdir", { op: "chdir", path }),
  });

  // ---- randomness --------------------------------------------------------
  // Math.random is xoshiro128** seeded from the host's random source (secure
  // and distinct per sandbox, or seeded in deterministic mode);
  // crypto.getRandomValues and crypto.randomUUID read the source directly.

  // Seeded on first use, not here: the prelude runs once at build time for
  // the pre-initialised snapshot every instance starts from.
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, seeded = false;
  function next32() {
    if (!seeded) {
      const seed = new Uint32Array(random(16).buffer);
      [s0, s1, s2, s3] = seed[0] | seed[1] | seed[2] | seed[3] ? seed : [1, 2, 3, 4];
      seeded = true;
    }
    const result = Math.imul(((Math.imul(s1, 5) << 7) | (Math.imul(s1, 5) >>> 25)), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t;
    s3 = (s3 << 11) | (s3 >>> 21);
    return result;
  }
  hidden(Math, "random", function random() {
    return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
  });
  const crypto = {
    getRandomValues(array) {
      if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array || array instanceof DataView) {
        throw new TypeError("getRandomValues needs an integer typed array");
      }
      if (array.byteLength > 65536) throw new RangeError("getRandomValues takes at most 65536 bytes");
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(random(array.byteLength));
      return array;
    },
    randomUUID() {
      const b = random(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  hidden(globalThis, "crypto", crypto);

  // ---- timers ------------------------------------------------------------

  const timers = new Map(); // id -> { due, fn, args, every }
  let timerSeq = 0;
  let uncaught; // [value] of an exception thrown by a timer callback
  function schedule(fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("the callback must be a function");
    const delay = Math.max(0, Number(ms) || 0);
    const id = ++timerSeq;
    timers.set(id, { due: dateNow() + delay, fn, args, every: repeat ? Math.max(1, delay) : 0 });
    return id;
  }
  // `await shell("ls | wc -l")` → { stdout, stderr, exitCode }: the shell of
  // this sandbox (same files, same tools and capabilities), run to completion.
  hidden(globalThis, "shell", async function shell(script) {
    if (typeof script !== "string") throw new TypeError(`shell() takes the script as a string, got ${kindOf(script)}`);
    const [stdout, stderr, status] = shellop(script);
    return { stdout, stderr, exitCode: Number(status) };
  });
  hidden(globalThis, "setTimeout", (fn, ms, ...args) => schedule(fn, ms, args, false));
  hidden(globalThis, "setInterval", (fn, ms, ...args) => schedule(fn, ms, args, true));
  hidden(globalThis, "clearTimeout", (id) => void timers.delete(id));
  hidden(globalThis, "clearInterval", (id) => void timers.delete(id));

  return {
    // Called before each run: the output budget, and the tool names when they changed.
    begin(n, names) {
      budget = [0, n, n];
      uncaught = undefined;
      if (names) {
        registered = names.slice();
        for (const name of names) bind(name);
      }
    },
    // [pending tool calls, ms until the next timer or -1]
    status() {
      if (uncaught) return [0, -1];
      let next = -1;
      if (timers.size) {
        const now = dateNow();
        for (const t of timers.values()) {
          const left = Math.max(0, t.due - now);
          if (next < 0 || left < next) next = left;
        }
      }
      return [pending.size, next];
    },
    runTimers() {
      const now = dateNow();
      const due = [...timers].filter(([, t]) => t.due <= now).sort((a, b) => a[1].due - b[1].due || a[0] - b[0]);
      for (const [id, t] of due) {
        if (!timers.has(id)) continue;
        if (t.every) t.due = now + t.every;
        else timers.delete(id);
        try {
          t.fn(...t.args);
        } catch (e) {
          if (!uncaught) uncaught = [e];
        }
      }
    },
    settle(id, ok, payload, code, reason) {
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      if (!ok) return p.reject(new ToolError(payload, code, reason || undefined, p.name));
      let value;
      try {
        value = jsonParse(payload);
      } catch {
        return p.reject(new ToolError(`${p.name}: the tool's result is not JSON`, "TOOL_RESULT_INVALID", undefined, p.name));
      }
      p.resolve(value);
    },
    // Calls and timers left behind end with the run.
    end() {
      pending.clear();
      timers.clear();
      const u = uncaught;
      uncaught = undefined;
      return u;
    },
    // The top-level return value: strings as they are, anything else as JSON
    // (falling back to inspect for what JSON cannot express); also printed.
    render(value) {
      if (value === undefined) return undefined;
      let text;
      if (typeof value === "string") text = value;
      else {
        try { text = jsonStringify(value); } catch { text = undefined; }
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
